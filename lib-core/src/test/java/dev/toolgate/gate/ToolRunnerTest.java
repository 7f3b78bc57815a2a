package dev.toolgate.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The tool runner: a gate thread by default, the caller's thread when the tool asks, and its deadlines. */
class ToolRunnerTest {

    private final ToolRunner runner = new ToolRunner();

    @AfterEach
    void close() {
        runner.close();
        Thread.interrupted();
    }

    @Test
    void aToolRunsOnTheCallersThreadOnlyWhenItAsks() throws Exception {
        Thread caller = Thread.currentThread();
        assertThat(runner.run(Thread::currentThread, Duration.ofSeconds(5), true)).isSameAs(caller);
        assertThat(runner.run(Thread::currentThread, Duration.ofSeconds(5), false)).isNotSameAs(caller)
                .satisfies(t -> assertThat(t.getName()).startsWith("toolgate-tool-"));
        assertThat(runner.openDeadlines()).isZero();
    }

    @Test
    void whatTheToolThrowsReachesTheCallerUnchanged() {
        IllegalStateException thrown = new IllegalStateException("backend refused");
        assertThatThrownBy(() -> runner.run(() -> {
            throw thrown;
        }, Duration.ofSeconds(5), true)).isSameAs(thrown);
        StackOverflowError error = new StackOverflowError("deep");
        assertThatThrownBy(() -> runner.run(() -> {
            throw error;
        }, Duration.ofSeconds(5), true)).isSameAs(error);
        assertThat(runner.openDeadlines()).isZero();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aToolOnTheCallersThreadIsInterruptedAtItsDeadlineAndTheInterruptDoesNotOutliveTheCall() throws Exception {
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.run(() -> {
            Thread.sleep(10_000);
            return "never";
        }, Duration.ofMillis(150), true)).isInstanceOf(ToolRunner.Timeout.class).hasMessage("timed out after 150 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(140), Duration.ofSeconds(5));
        assertThat(Thread.currentThread().isInterrupted()).as("the deadline's interrupt is cleared").isFalse();
        Thread.sleep(200); // an interrupt arriving late would end this sleep with an exception
        assertThat(runner.run(() -> "next", Duration.ofSeconds(5), true)).isEqualTo("next");
    }

    @Test
    void aToolThatIgnoresTheInterruptHoldsItsCallerAndStillEndsAsTimedOut() {
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.run(() -> {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
            while (System.nanoTime() < until) {
                if (Thread.currentThread().isInterrupted()) {
                    sawInterrupt.set(true); // and carries on regardless
                }
                Thread.onSpinWait();
            }
            return "late";
        }, Duration.ofMillis(100), true)).isInstanceOf(ToolRunner.Timeout.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(590));
        assertThat(sawInterrupt).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aCallerInterruptedBeforehandDoesNotStartTheTool() {
        AtomicInteger ran = new AtomicInteger();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> runner.run(ran::incrementAndGet, Duration.ofSeconds(5), true))
                .isInstanceOf(InterruptedException.class);
        assertThat(ran).hasValue(0);
        assertThat(Thread.interrupted()).as("the caller keeps its own interrupt").isTrue();
        assertThat(runner.openDeadlines()).isZero();
    }

    @Test
    void anEarlierDeadlineWakesTheWatchdogSleepingTowardsALaterOne() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        CountDownLatch longStarted = new CountDownLatch(1);
        try {
            Future<?> longOne = callers.submit(() -> runner.run(() -> {
                longStarted.countDown();
                Thread.sleep(30_000);
                return null;
            }, Duration.ofSeconds(20), true));
            assertThat(longStarted.await(5, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(50); // the watchdog now sleeps towards the 20-s deadline
            long start = System.nanoTime();
            Future<?> shortOne = callers.submit(() -> runner.run(() -> {
                Thread.sleep(30_000);
                return null;
            }, Duration.ofMillis(100), true));
            assertThatThrownBy(() -> shortOne.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ToolRunner.Timeout.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(longOne.isDone()).isFalse();
            assertThat(runner.openDeadlines()).isEqualTo(1);
            longOne.cancel(true);
        } finally {
            callers.shutdownNow();
            assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * Tools that end around their deadline, from four threads at once: each run either returns its
     * value or times out, the thread never keeps an interrupt after the call, and none arrives later.
     */
    @Test
    void deadlinesRacingTheirToolsNeverLeaveAnInterruptBehind() throws Exception {
        int threads = 4;
        int runs = 2_000;
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        AtomicReference<String> leak = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < runs; i++) {
                        long spin = ThreadLocalRandom.current().nextLong(0, 2_000_000);
                        try {
                            String value = runner.run(() -> {
                                long until = System.nanoTime() + spin;
                                while (System.nanoTime() < until && !Thread.currentThread().isInterrupted()) {
                                    Thread.onSpinWait();
                                }
                                return "done";
                            }, Duration.ofMillis(1), true);
                            assertThat(value).isEqualTo("done");
                            finished.incrementAndGet();
                        } catch (ToolRunner.Timeout e) {
                            timedOut.incrementAndGet();
                        }
                        if (Thread.currentThread().isInterrupted()) {
                            leak.compareAndSet(null, "interrupted after run " + i);
                            return;
                        }
                    }
                    Thread.sleep(200); // a late interrupt would end this sleep
                } catch (InterruptedException e) {
                    leak.compareAndSet(null, "interrupted after the runs");
                } catch (Exception e) {
                    leak.compareAndSet(null, e.toString());
                }
            });
            worker.start();
            workers.add(worker);
        }
        go.countDown();
        for (Thread worker : workers) {
            worker.join(60_000);
            assertThat(worker.isAlive()).isFalse();
        }
        assertThat(leak.get()).isNull();
        assertThat(finished.get() + timedOut.get()).isEqualTo(threads * runs);
        assertThat(finished.get()).as("runs that ended in time").isPositive();
        assertThat(timedOut.get()).as("runs cut at their deadline").isPositive();
        assertThat(runner.openDeadlines()).isZero();
    }

    @Test
    void aClosedRunnerRefusesBothKindsOfRun() {
        runner.close();
        assertThatThrownBy(() -> runner.run(() -> "x", Duration.ofSeconds(1), true))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> runner.run(() -> "x", Duration.ofSeconds(1), false))
                .isInstanceOf(RejectedExecutionException.class);
    }
}
