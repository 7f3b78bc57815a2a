package dev.toolgate.examples.bench;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The workloads of {@link StorageBenchmark}: the gates it measures, principals' contexts, conversations
 * that start a new session every few proposals, propose + apply pairs and their raw baseline, and the
 * budget's most admissions in any window.
 */
final class StorageWorkloads {

    private StorageWorkloads() {
    }

    /**
     * Each thread's conversation: a new session every {@value StorageBenchmark#PROPOSALS_PER_SESSION} proposals, as
     * conversations go (and so a session's history stays small, as it does in real use).
     */
    static final class Sessions {
        private final CallContext[] base;
        private final long[] count;

        Sessions(CallContext[] base) {
            this.base = base;
            this.count = new long[base.length];
        }

        CallContext next(int thread) {
            return base[thread].withSession(base[thread].sessionId() + "-" + count[thread]++ / StorageBenchmark.PROPOSALS_PER_SESSION);
        }
    }

    /** A propose + apply pair of {@code tool} in the next session of the calling thread. */
    static Harness.Op pairOf(Toolgate gate, Sessions sessions, String tool) {
        return t -> {
            CallContext ctx = sessions.next(t);
            gate.apply(ctx, gate.propose(ctx, tool, "{\"key\":\"k\"}").token());
            return true;
        };
    }

    /** The raw baseline's three commits of a pair, in the next session of the calling thread. */
    static Harness.Op rawPairOf(RawBaseline raw, Sessions sessions, boolean postgres) {
        return t -> {
            CallContext ctx = sessions.next(t);
            raw.proposeClaimComplete(ctx.principal().key(), ctx.sessionId(), postgres);
            return true;
        };
    }

    static Toolgate gate(ToolgateStore store, BenchTools tools, ToolBudget budget) {
        return CodemodeWorkloads.withTools(Toolgate.builder().discoverTools(false).discoverComponents(false).store(store).provider(tools.provider())
                .budget(budget).maxPendingPerSession(1000).sweepInterval(Duration.ZERO)
                .program(StorageBenchmark.FIVE_READS, run -> {
                    for (int step = 0; step < StorageBenchmark.STEPS; step++) {
                        run.call(BenchTools.PING, null);
                    }
                    return null;
                })
                .programs(Codemode.programs())
                .build());
    }

    static CallContext[] contexts(String prefix, int count) {
        CallContext[] contexts = new CallContext[count];
        for (int i = 0; i < count; i++) {
            contexts[i] = CallContext.of(Principal.user(prefix + i, BenchTools.RULE)).withTenant("acme")
                    .withSession("bench-" + prefix + i);
        }
        return contexts;
    }

    /** The most admissions of any one principal inside any window {@code (t - WINDOW, t]}. */
    static int maxInAnyWindow(Map<String, List<Instant>> byPrincipal) {
        return BudgetVersusBucket4j.maxInAnyWindow(byPrincipal, StorageBenchmark.WINDOW);
    }
}
