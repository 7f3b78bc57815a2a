package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Budget admissions on an H2 file, at the level of H2's store: a refused call commits nothing (on H2 the
 * {@code SELECT ... FOR UPDATE} behind the lock is a write, and each refusal behind it was a commit of
 * its own, about 12 KB of file).
 */
class H2AdmissionsTest {

    private Path dir;

    @AfterEach
    void deleteFiles() throws Exception {
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void aRefusedCallCommitsNothingAndTheCapStillHolds() throws Exception {
        dir = Files.createTempDirectory("toolgate-h2-admissions");
        // the store's own file system (interruptsafe:), so that this test's connection joins the same database
        String url = "jdbc:h2:interruptsafe:" + dir.resolve("budget").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2)
                     .h2Compaction(Duration.ZERO, 80, Duration.ofSeconds(2)).build(); // no compaction commits
             Hosts host = Hosts.on(store, b -> b.budget(ToolBudget.perPrincipal(3, Duration.ofMinutes(10))));
             Connection c = DriverManager.getConnection(url)) {
            MVStore h2 = ((SessionLocal) c.unwrap(JdbcConnection.class).getSession()).getDatabase().getStore().getMvStore();
            CallContext ctx = Hosts.ctx(Hosts.WRITER);
            Proposal proposal = host.gate().propose(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
            host.gate().call(ctx, "notes.list", "{}");
            host.gate().apply(ctx, proposal.token()); // the third admission, the claim's
            long version = h2.getCurrentVersion();

            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> host.gate().call(ctx, "notes.list", "{}"))
                        .isInstanceOfSatisfying(BudgetExceededException.class, e -> assertThat(e.retryAfter())
                                .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(10)));
            }
            assertThatThrownBy(() -> host.gate().propose(ctx, "notes.add", "{\"id\":\"n2\",\"text\":\"x\"}"))
                    .isInstanceOf(BudgetExceededException.class);

            assertThat(h2.getCurrentVersion()).as("H2's store version after six refusals (each commit adds one)")
                    .isEqualTo(version);
            assertThat(SchemaContract.query(url, "SELECT COUNT(*) FROM toolgate_budget_admission")).isEqualTo(3);
            assertThat(host.notes().reads).hasValue(1);
        }
    }
}
