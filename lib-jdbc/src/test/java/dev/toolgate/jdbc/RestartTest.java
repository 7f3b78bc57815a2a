package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proposals, like the whole audit trail, survive a restart on the same H2 file; commits reach the file at once. */
class RestartTest {

    @TempDir
    Path dir;

    @Test
    void aTokenProposedBeforeARestartIsAppliedAfterIt() {
        String url = "jdbc:h2:file:" + dir.resolve("toolgate").toAbsolutePath();
        CallContext ctx = Hosts.ctx(Hosts.WRITER);
        Proposal proposal;
        try (JdbcStore store = JdbcStore.builder().url(url).build(); Hosts host = Hosts.on(store)) {
            proposal = host.gate().propose(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"before restart\"}");
        }
        assertThat(dir.resolve("toolgate.mv.db")).exists();

        try (JdbcStore store = JdbcStore.builder().url(url).build(); Hosts host = Hosts.on(store)) {
            Applied applied = host.gate().apply(ctx, proposal.token());

            assertThat(applied.callId()).isEqualTo(proposal.callId());
            assertThat(host.notes().snapshot()).containsEntry("n1", "before restart");
            assertThat(host.gate().findCall(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
        }
    }

    @Test
    void anH2FileDatabaseWritesEveryCommitToItsFileBeforeItReturns() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("durable").toAbsolutePath();
        String writeDelay = "SELECT MAX(CAST(SETTING_VALUE AS INT)) FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'";
        for (int start = 0; start < 2; start++) {
            try (JdbcStore store = JdbcStore.builder().url(url).build()) {
                // H2's default is 500 ms, and a process killed within them loses its last commits (H2CrashTest)
                // under the name the store opened the file with (H2 opens a file once per process)
                assertThat(SchemaContract.query(JdbcStore.Builder.interruptSafe(url), writeDelay)).as("start %d", start)
                        .isZero();
                assertThat(store.calls().countPending("s")).isZero();
            }
        }
    }
}
