package dev.toolgate;

import dev.toolgate.json.Redactor;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate's scheduled sweep: one daemon thread that runs {@link Toolgate#sweep} every interval; a sweep
 * that fails is logged (redacted) and the next one runs.
 */
final class SweepSchedule {

    private static final Logger LOG = LoggerFactory.getLogger(Toolgate.class);
    /** A store's failure can quote its URL or a row: logged redacted. */
    private static final Redactor LOGGED = Redactor.defaults();

    private SweepSchedule() {
    }

    /** The sweeper running {@code sweep} every {@code interval}; null for a zero interval (no sweeper). */
    static ScheduledExecutorService start(Duration interval, Runnable sweep) {
        if (interval.isZero()) {
            return null;
        }
        ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "toolgate-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        long millis = interval.toMillis();
        sweeper.scheduleWithFixedDelay(() -> sweepQuietly(sweep), millis, millis, TimeUnit.MILLISECONDS);
        return sweeper;
    }

    private static void sweepQuietly(Runnable sweep) {
        try {
            sweep.run();
        } catch (dev.toolgate.spi.StoreUnavailableException e) { // the store logs the outage once
            LOG.debug("The sweep found the store unavailable; it runs again in the next interval: {}", e.getMessage());
        } catch (Throwable e) { // an escaping throwable would cancel every later sweep
            LOG.warn("The sweep failed; it runs again in the next interval (apply still rejects expired tokens)",
                    LOGGED.redactThrowable(e));
        }
    }
}
