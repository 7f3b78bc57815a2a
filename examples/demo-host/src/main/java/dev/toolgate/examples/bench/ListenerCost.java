package dev.toolgate.examples.bench;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.micrometer.GlobalRegistryListener;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

/**
 * The CPU time toolgate-micrometer's listener spends on one executed-READ event, alone, on one thread:
 * its meters on a {@link SimpleMeterRegistry} (through {@link GlobalRegistryListener}, which is what
 * {@code install} with a meter registry and no tracer does). Unlike a throughput ratio, this figure does
 * not depend on the share of a busy machine the measuring thread got.
 */
final class ListenerCost {

    private static final int BATCH = 200_000;
    private static final int BATCHES = 9;

    private ListenerCost() {
    }

    /** The median CPU nanoseconds per event over {@value #BATCHES} batches of {@value #BATCH}, after a warm-up. */
    static double nanosPerEvent() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Metrics.addRegistry(meters);
        try {
            ToolCallListener listener = new GlobalRegistryListener();
            ToolCallEvent event = new ToolCallEvent(UUID.randomUUID().toString(), "bench.ping", Effect.READ,
                    CallStatus.EXECUTED, PrincipalRef.of(dev.toolgate.access.Principal.user("bench")), null, "java", Duration.ofNanos(12_345), "s-1",
                    Mode.ALLOW, ModeSource.INFERRED_DEFAULT, null);
            for (int i = 0; i < 3 * BATCH; i++) {
                listener.onCall(event);
            }
            double[] perEvent = new double[BATCHES];
            for (int b = 0; b < BATCHES; b++) {
                long start = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < BATCH; i++) {
                    listener.onCall(event);
                }
                perEvent[b] = (threads.getCurrentThreadCpuTime() - start) / (double) BATCH;
            }
            Arrays.sort(perEvent);
            return perEvent[BATCHES / 2];
        } finally {
            Metrics.removeRegistry(meters);
            Metrics.globalRegistry.clear();
            meters.close();
        }
    }
}
