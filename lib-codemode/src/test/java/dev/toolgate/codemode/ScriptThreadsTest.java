package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A script that ignores its cancellation is stopped, or counted as stuck while it cannot be. */
class ScriptThreadsTest {

    /** A script that spins until released, ignoring cancellation, like one that swallows it. */
    private static final class Spinner implements ScriptThreads.Script<String> {
        final AtomicBoolean release = new AtomicBoolean();
        final AtomicInteger cancels = new AtomicInteger();
        final AtomicInteger kills = new AtomicInteger();
        final boolean killable;
        final CountDownLatch ended = new CountDownLatch(1);
        final java.util.concurrent.CompletableFuture<Void> stopped = new java.util.concurrent.CompletableFuture<>();

        Spinner(boolean killable) {
            this.killable = killable;
        }

        @Override
        public String call() {
            try {
                while (!release.get()) {
                    Thread.onSpinWait();
                }
                return "released";
            } finally {
                ended.countDown();
            }
        }

        @Override
        public void cancel() {
            cancels.incrementAndGet();
        }

        @Override
        public void abandon() {
        }

        @Override
        public java.util.concurrent.CompletableFuture<?> stopped() {
            return stopped;
        }

        @Override
        public boolean kill(Thread thread) {
            kills.incrementAndGet();
            return killable && ScriptThreads.stop(thread);
        }
    }

    @Test
    void aScriptThatIgnoresItsCancellationIsStoppedAndTheCallerIsAnsweredAtItsLimitAndGrace() throws Exception {
        try (ScriptThreads threads = new ScriptThreads()) {
            Spinner spinner = new Spinner(true);
            long start = System.nanoTime();
            ScriptThreads.Outcome<String> outcome = threads.run(spinner, Duration.ofMillis(300));
            assertThat(outcome).isInstanceOf(ScriptThreads.Outcome.Overstayed.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(300).plus(ScriptThreads.GRACE)
                    .plusSeconds(1));
            assertThat(spinner.cancels).hasValue(1);
            assertThat(spinner.ended.await(5, TimeUnit.SECONDS)).as("the thread was stopped").isTrue();
            assertThat(spinner.kills.get()).isPositive();
            assertThat(threads.stuck()).isZero();
        }
    }

    @Test
    void aStoppedScriptThatIgnoresItsCancellationIsAbandonedAfterTheStopGraceNotItsLimit() throws Exception {
        try (ScriptThreads threads = new ScriptThreads()) {
            Spinner spinner = new Spinner(true);
            spinner.stopped.complete(null); // its caller's signal arrived: the run is over whatever the script does
            long start = System.nanoTime();
            ScriptThreads.Outcome<String> outcome = threads.run(spinner, Duration.ofSeconds(30));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertThat(outcome).isInstanceOf(ScriptThreads.Outcome.Overstayed.class);
            assertThat(waited).as("waited %s", waited).isGreaterThanOrEqualTo(ScriptThreads.STOP_GRACE)
                    .isLessThan(ScriptThreads.STOP_GRACE.plusSeconds(1));
            assertThat(spinner.ended.await(5, TimeUnit.SECONDS)).as("the thread was stopped").isTrue();
            assertThat(threads.stuck()).isZero();
        }
    }

    @Test
    void aStoppedScriptThatEndsWithinTheStopGraceIsAnsweredWithItsValue() {
        try (ScriptThreads threads = new ScriptThreads()) {
            Spinner spinner = new Spinner(true);
            spinner.stopped.complete(null);
            spinner.release.set(true);
            assertThat(threads.run(spinner, Duration.ofSeconds(30))).isEqualTo(new ScriptThreads.Outcome.Ended<>("released"));
        }
    }

    @Test
    void aScriptThatCannotBeStoppedIsCountedAsStuckUntilItEnds() throws Exception {
        try (ScriptThreads threads = new ScriptThreads()) {
            Spinner spinner = new Spinner(false);
            assertThat(threads.run(spinner, Duration.ofMillis(100))).isInstanceOf(ScriptThreads.Outcome.Overstayed.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (threads.stuck() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(threads.stuck()).isEqualTo(1);
            spinner.release.set(true);
            assertThat(spinner.ended.await(5, TimeUnit.SECONDS)).isTrue();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (threads.stuck() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(threads.stuck()).isZero();
        }
    }

    @Test
    void aScriptThatEndsInTimeIsAnsweredWithItsValue() {
        try (ScriptThreads threads = new ScriptThreads()) {
            Spinner spinner = new Spinner(true);
            spinner.release.set(true);
            assertThat(threads.run(spinner, Duration.ofSeconds(1))).isEqualTo(new ScriptThreads.Outcome.Ended<>("released"));
            assertThat(spinner.cancels).hasValue(0);
        }
    }
}
