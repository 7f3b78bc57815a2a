package dev.toolgate.examples.bench;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.workflow.Workflow;
import java.util.Map;

/**
 * DBOS Transact's side of {@link DurableVersusDbos}: a workflow of {@value StorageBenchmark#STEPS} steps,
 * each a step function doing what Toolgate's {@code bench.ping} does (answer {@code {"pong": true}}), each
 * checkpointed by DBOS in its system database before the workflow goes on.
 */
interface DbosFiveSteps {

    /** Runs the workflow on the calling thread and returns how many steps answered. */
    int run();

    /** Registers the workflow with {@code dbos} (before its launch) and returns its durable proxy. */
    static DbosFiveSteps register(DBOS dbos) {
        return dbos.registerProxy(DbosFiveSteps.class, new Impl(dbos));
    }

    /** The workflow's code; DBOS calls it through the proxy. */
    final class Impl implements DbosFiveSteps {
        private final DBOS dbos;

        Impl(DBOS dbos) {
            this.dbos = dbos;
        }

        @Workflow(name = "fiveSteps")
        @Override
        public int run() {
            int answered = 0;
            for (int step = 0; step < StorageBenchmark.STEPS; step++) {
                Map<String, Boolean> result = dbos.runStep(() -> Map.of("pong", true), "ping");
                if (Boolean.TRUE.equals(result.get("pong"))) {
                    answered++;
                }
            }
            return answered;
        }
    }
}
