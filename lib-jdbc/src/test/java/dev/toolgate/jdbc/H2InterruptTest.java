package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A thread interrupted in the middle of store calls on an embedded H2 file (a tool's timeout, a host's
 * {@code shutdownNow}, an HTTP watchdog) must not take the database down for every other thread. On
 * H2's default file system an interrupt during a read or write closes the file's {@code FileChannel}
 * ({@code ClosedByInterruptException}), H2 then closes the database, and every call of every thread
 * fails ("The database has been closed"); the store opens file databases on its file system
 * {@code interruptsafe:} ({@link H2InterruptSafePath}), which reopens what an interrupt closed.
 */
class H2InterruptTest {

    @TempDir
    Path dir;

    @Test
    void interruptingAThreadInTheMiddleOfStoreCallsLeavesTheStoreWorkingForOthers() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("interrupted").toAbsolutePath();
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(6).build();
             Hosts host = Hosts.on(store)) {
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> othersFailed = new ConcurrentLinkedQueue<>();
            AtomicLong othersCalls = new AtomicLong();
            List<Thread> others = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                CallContext ctx = Hosts.ctx(Hosts.READER).withSession("other-" + t);
                Thread other = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            if (!(host.gate().call(ctx, "notes.list", "{}") instanceof Executed)) {
                                othersFailed.add("not executed");
                            }
                            othersCalls.incrementAndGet();
                        } catch (RuntimeException e) {
                            othersFailed.add(e.toString());
                        }
                    }
                }, "h2-interrupt-other-" + t);
                other.start();
                others.add(other);
            }

            // the victim keeps calling (each call writes its audit row) and is interrupted again and
            // again, in the middle of whatever store call it is in
            AtomicLong interruptsSeen = new AtomicLong();
            AtomicLong victimCalls = new AtomicLong();
            CountDownLatch started = new CountDownLatch(1);
            CallContext victimCtx = Hosts.ctx(Hosts.READER).withSession("victim");
            Thread victim = new Thread(() -> {
                started.countDown();
                while (!stop.get()) {
                    try {
                        host.gate().call(victimCtx, "notes.list", "{}");
                        victimCalls.incrementAndGet();
                    } catch (RuntimeException e) {
                        // the victim's own call may fail; what matters is everyone else
                    }
                    if (Thread.interrupted()) {
                        interruptsSeen.incrementAndGet(); // the interrupt is kept for the thread's code
                    }
                }
            }, "h2-interrupt-victim");
            victim.start();
            started.await();
            long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            int interrupts = 0;
            while (System.nanoTime() < until) {
                victim.interrupt();
                interrupts++;
                Thread.sleep(0, 200_000 + (interrupts % 7) * 100_000);
            }
            long othersBefore = othersCalls.get();
            Thread.sleep(300); // the others go on after the last interrupt
            stop.set(true);
            victim.join();
            for (Thread other : others) {
                other.join();
            }

            assertThat(interrupts).as("interrupts sent").isGreaterThan(100);
            assertThat(othersFailed).as("calls of the threads nobody interrupted").isEmpty();
            assertThat(victimCalls.get()).as("calls of the interrupted thread that succeeded").isPositive();
            assertThat(interruptsSeen.get()).as("interrupts the victim still saw after its store calls").isPositive();
            assertThat(othersCalls.get()).as("the others' calls, and after the last interrupt")
                    .isGreaterThan(othersBefore).isGreaterThan(50);
            assertThat(host.gate().call(Hosts.ctx(Hosts.READER), "notes.list", "{}")).isInstanceOf(Executed.class);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:h2:file:~/.toolgate/toolgate | jdbc:h2:interruptsafe:~/.toolgate/toolgate",
            "jdbc:h2:FILE:/var/lib/app/tg;LOCK_TIMEOUT=5000 | jdbc:h2:interruptsafe:/var/lib/app/tg;LOCK_TIMEOUT=5000",
            "jdbc:h2:~/tg | jdbc:h2:interruptsafe:~/tg",
            "jdbc:h2:./data/tg | jdbc:h2:interruptsafe:./data/tg",
            "jdbc:h2:/srv/tg;MODE=PostgreSQL | jdbc:h2:interruptsafe:/srv/tg;MODE=PostgreSQL",
            "jdbc:h2:C:/data/tg | jdbc:h2:interruptsafe:C:/data/tg",
            "jdbc:h2:mem:tg | jdbc:h2:mem:tg",
            "jdbc:h2:tcp://db:9092/~/tg | jdbc:h2:tcp://db:9092/~/tg",
            "jdbc:h2:nio:/srv/tg | jdbc:h2:nio:/srv/tg",
            "jdbc:h2:retry:/srv/tg | jdbc:h2:retry:/srv/tg",
            "jdbc:h2:async:/srv/tg | jdbc:h2:async:/srv/tg",
            "jdbc:h2:interruptsafe:/srv/tg | jdbc:h2:interruptsafe:/srv/tg",
            "jdbc:h2:file:~/demo;AUTO_SERVER=TRUE | jdbc:h2:file:~/demo;AUTO_SERVER=TRUE",
            "jdbc:postgresql://db/app | jdbc:postgresql://db/app"})
    void anEmbeddedFileUrlIsOpenedInterruptSafeAndEveryOtherUrlAsGiven(String given, String opened) {
        assertThat(JdbcStore.Builder.interruptSafe(given)).isEqualTo(opened);
    }

    @Test
    void aFileTheHostAlreadyHasOpenUnderItsPlainNameIsJoinedAsItIs() throws Exception {
        // H2 opens a file once per process: the store joins the host's database instead of failing
        String url = "jdbc:h2:file:" + dir.resolve("shared").toAbsolutePath();
        try (Connection host = DriverManager.getConnection(url);
             JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build()) {
            assertThat(store.toString()).contains(url);
            assertThat(store.calls().countPending("nobody")).isZero();
            try (Statement s = host.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM toolgate_schema_version")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).as("the store's schema in the host's database").isPositive();
            }
        }
    }
}
