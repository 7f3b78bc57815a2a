package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.spi.StoreUnavailableException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;

/** The store fails closed with a typed error, quickly: nothing runs unrecorded, nothing hangs. */
class FailureTest {

    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @Test
    void anUnreachableDatabaseFailsTheStartQuickly() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> JdbcStore.builder().url("jdbc:postgresql://127.0.0.1:" + freePort() + "/none?connectTimeout=2")
                .username("nobody").password("hunter2").connectionTimeout(TIMEOUT).build())
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageStartingWith("Toolgate store unavailable")
                .hasMessageNotContaining("hunter2");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void whenTheDatabaseGoesAwayCallsAndAppliesFailTypedAndNoToolRuns() throws Exception {
        int port = freePort();
        Server server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:failure;DB_CLOSE_DELAY=-1";
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).connectionTimeout(TIMEOUT).build();
             Hosts host = Hosts.on(store)) {
            CallContext ctx = Hosts.ctx(Hosts.WRITER);
            host.gate().call(ctx, "notes.list", "{}");
            Proposal proposal = host.gate().propose(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
            assertThat(host.notes().reads).hasValue(1);

            server.stop();

            long start = System.nanoTime();
            assertThatThrownBy(() -> host.gate().call(ctx, "notes.list", "{}"))
                    .isInstanceOf(StoreUnavailableException.class).hasMessageStartingWith("Toolgate store unavailable");
            assertThatThrownBy(() -> host.gate().apply(ctx, proposal.token()))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> host.gate().propose(ctx, "notes.add", "{\"id\":\"n2\",\"text\":\"x\"}"))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(host.notes().reads).as("no read ran unrecorded").hasValue(1);
            assertThat(host.notes().mutations).as("nothing was applied").hasValue(0);
            assertThat(host.notes().dryRuns).as("no dry-run after the outage").hasValue(1);
        } finally {
            server.stop();
        }
    }

    @Test
    void anExhaustedPoolIsATypedErrorAfterTheConnectionTimeoutNotAHang() throws Exception {
        String url = TestStores.h2MemoryUrl("exhausted") + ";DB_CLOSE_DELAY=-1";
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(1).connectionTimeout(TIMEOUT).build();
             Hosts host = Hosts.on(store);
             Connection blocker = DriverManager.getConnection(url)) {
            CallContext ctx = Hosts.ctx(Hosts.READER);
            host.gate().call(ctx, "notes.list", "{}"); // creates the reader's budget row
            blocker.setAutoCommit(false);
            blocker.createStatement().executeQuery("SELECT * FROM toolgate_budget WHERE principal = 'user:reader' FOR UPDATE").next();

            // this call takes the only connection and waits for the budget row
            CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> host.gate().call(ctx, "notes.list", "{}"));
            Thread.sleep(200);

            long start = System.nanoTime();
            assertThatThrownBy(() -> host.gate().call(ctx, "notes.list", "{}"))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessage("Toolgate store unavailable: no connection within 500 ms (pool exhausted or database down)");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));

            blocker.rollback();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isNotNull();
            assertThat(host.notes().reads).hasValue(2);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
