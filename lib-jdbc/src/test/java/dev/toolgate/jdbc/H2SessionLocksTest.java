package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.testkit.Together;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pending cap of a session on an H2 database in this JVM is decided under a lock of this JVM
 * ({@link LocalSessionLocks}), not the session row's: several stores, each with its own pool, on one
 * H2 file share it, and a database other processes reach keeps the row lock.
 */
class H2SessionLocksTest {

    private static final Duration TTL = Duration.ofMinutes(10);

    @TempDir
    Path dir;

    @Test
    void storesWithTheirOwnPoolsOnOneH2FileNeverExceedASessionsPendingCap() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("shared").toAbsolutePath();
        int cap = 3;
        int threads = 12;
        List<JdbcStore> stores = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                stores.add(JdbcStore.builder().url(url).poolSize(4).build());
            }
            for (int round = 0; round < 25; round++) {
                String session = "crowded-" + round;
                List<ProposeResult.Status> results = Together.run(threads,
                        t -> stores.get(t % stores.size()).calls().propose(Races.proposal(session), TTL, cap).status());
                assertThat(results).as("round %d", round).filteredOn(s -> s == ProposeResult.Status.PROPOSED).hasSize(cap);
                assertThat(results).filteredOn(s -> s == ProposeResult.Status.PENDING_LIMIT).hasSize(threads - cap);
                for (JdbcStore store : stores) {
                    assertThat(store.calls().countPending(session)).isEqualTo(cap);
                }
                assertThat(stores.get(0).calls().query(CallQuery.latest(100).session(session).status(CallStatus.PROPOSED)))
                        .as("a refused proposal leaves no row").hasSize(cap);
            }
            // the session's row is still written once, for purges and endSession
            try (Connection c = DriverManager.getConnection("jdbc:h2:interruptsafe:" + dir.resolve("shared").toAbsolutePath()
                    + ";PAGE_SIZE=" + JdbcStore.H2_PAGE_SIZE + ";ANALYZE_AUTO=0");
                 var count = c.createStatement().executeQuery("SELECT COUNT(*) FROM toolgate_session"
                         + " WHERE session_id LIKE 'crowded-%'")) {
                count.next();
                assertThat(count.getInt(1)).isEqualTo(25);
            }
        } finally {
            for (JdbcStore store : stores) {
                store.close();
            }
        }
    }

    @Test
    void theLocksBelongToTheDatabaseInThisJvmAndToNoOther() throws Exception {
        String file = "jdbc:h2:file:" + dir.resolve("one").toAbsolutePath();
        try (Connection a = DriverManager.getConnection(file);
             Connection b = DriverManager.getConnection(file);
             Connection memory = DriverManager.getConnection(TestStores.h2MemoryUrl("locks"));
             Connection otherMemory = DriverManager.getConnection(TestStores.h2MemoryUrl("locks"))) {
            LocalSessionLocks locks = LocalSessionLocks.of(a);
            assertThat(locks).isNotNull().isSameAs(LocalSessionLocks.of(b));
            assertThat(LocalSessionLocks.of(memory)).isNotNull().isNotSameAs(locks)
                    .isNotSameAs(LocalSessionLocks.of(otherMemory));
        }
        // other processes can reach these: the session row's lock stays
        try (Connection auto = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("auto").toAbsolutePath()
                + ";AUTO_SERVER=TRUE")) {
            assertThat(LocalSessionLocks.of(auto)).isNull();
        }
        Server tcp = Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString()).start();
        try (Connection remote = DriverManager.getConnection("jdbc:h2:tcp://localhost:" + tcp.getPort() + "/./remote")) {
            assertThat(LocalSessionLocks.of(remote)).isNull();
        } finally {
            tcp.stop();
        }
    }

    @Test
    void aProposerWaitsForItsSessionsHolderOnlyAndAnInterruptedWaitFailsTypedAndKeepsTheInterrupt() throws Exception {
        try (Connection c = DriverManager.getConnection(TestStores.h2MemoryUrl("wait"))) {
            LocalSessionLocks locks = LocalSessionLocks.of(c);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = new Thread(() -> locks.withLock("s", () -> {
                held.countDown();
                await(release);
                return null;
            }));
            holder.start();
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(locks.withLock(otherStripeThan("s"), () -> "free")).as("another session does not wait").isEqualTo("free");

            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> interruptKept = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    locks.withLock("s", () -> "never");
                } catch (Throwable e) {
                    failure.set(e);
                    interruptKept.set(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.isAlive()) {
                Thread.onSpinWait();
            }
            waiter.interrupt();
            waiter.join(10_000);
            assertThat(failure.get()).isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("session s").hasCauseInstanceOf(InterruptedException.class);
            assertThat(interruptKept.get()).isTrue();

            release.countDown();
            holder.join(10_000);
            assertThat(locks.withLock("s", () -> locks.isHeldByCurrentThread("s"))).isTrue();
            assertThat(locks.isHeldByCurrentThread("s")).as("released after the action").isFalse();
            assertThatThrownBy(() -> locks.withLock("s", () -> {
                throw new IllegalStateException("the action failed");
            })).hasMessage("the action failed");
            assertThat(locks.withLock("s", () -> "free again")).isEqualTo("free again");
        }
    }

    @Test
    void endingASessionWaitsForItsProposalInFlight() throws Exception {
        try (JdbcStore store = JdbcStore.builder().url("jdbc:h2:file:" + dir.resolve("ending").toAbsolutePath()).build();
             Connection c = DriverManager.getConnection("jdbc:h2:interruptsafe:" + dir.resolve("ending").toAbsolutePath()
                     + ";PAGE_SIZE=" + JdbcStore.H2_PAGE_SIZE + ";ANALYZE_AUTO=0")) {
            // the session has its row and nothing pending: ending it now would delete the row
            String first = store.calls().propose(Races.proposal("ending"), TTL, 5).record().id();
            store.calls().claim(first, new CallStore.Claim(new dev.toolgate.access.PrincipalRef(dev.toolgate.access.PrincipalKind.USER, "ann"), null, null, TTL), null);
            assertThat(store.calls().countPending("ending")).isZero();

            LocalSessionLocks locks = LocalSessionLocks.of(c); // the same database: the store's locks
            AtomicReference<Boolean> ended = new AtomicReference<>();
            Thread ender = new Thread(() -> ended.set(store.calls().endSession("ending")));
            String second = locks.withLock("ending", () -> { // a proposal in flight: it holds the session's lock
                ender.start();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (ender.getState() != Thread.State.TIMED_WAITING && ender.isAlive() && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return store.calls().propose(Races.proposal("ending"), TTL, 5).record().id();
            });
            ender.join(10_000);
            assertThat(ended.get()).as("the session ended after the proposal in flight, which is pending").isFalse();
            assertThat(store.calls().countPending("ending")).isEqualTo(1);
            assertThat(store.calls().find(second)).isPresent();
            store.calls().claim(second, new CallStore.Claim(new dev.toolgate.access.PrincipalRef(dev.toolgate.access.PrincipalKind.USER, "ann"), null, null, TTL), null);
            assertThat(store.calls().endSession("ending")).as("nothing pending now").isTrue();
        }
    }

    private static String otherStripeThan(String session) {
        for (int i = 0; ; i++) {
            String other = "other-" + i;
            int a = session.hashCode();
            int b = other.hashCode();
            if (((a ^ (a >>> 16)) & (LocalSessionLocks.STRIPES - 1)) != ((b ^ (b >>> 16)) & (LocalSessionLocks.STRIPES - 1))) {
                return other;
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
