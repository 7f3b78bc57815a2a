package dev.toolgate.execution;

import dev.toolgate.audit.ExecutionStatus;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What starting, approving or resuming a run came to. Run-level problems (the program threw, a replay
 * diverged, a step was refused) are outcomes, never exceptions, so an agent loop is never broken by
 * one; every outcome names its execution.
 */
public sealed interface ExecutionOutcome {

    /** The run. */
    String executionId();

    /** The wire name of the outcome: {@code completed}, {@code paused}, {@code failed} or {@code not_paused}. */
    String status();

    /** As JSON for a client or a model. */
    ObjectNode toJson();

    /**
     * The program returned.
     *
     * @param result what it returned, redacted and capped
     * @param logs   its log lines
     */
    record Completed(String executionId, JsonNode result, List<String> logs) implements ExecutionOutcome {
        /** Checks the components; see the class description for what each must hold. */
        public Completed {
            Objects.requireNonNull(executionId, "executionId");
            Objects.requireNonNull(result, "result");
            logs = List.copyOf(logs);
        }

        @Override
        public String status() {
            return "completed";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = envelope(this);
            json.set("result", result);
            json.set("logs", lines(logs));
            return json;
        }
    }

    /**
     * A step needs consent: the run waits. Approve it with {@code Executions.approve(ctx, executionId)}.
     *
     * @param pending the step (or steps) awaiting consent
     */
    record Paused(String executionId, List<PendingAction> pending) implements ExecutionOutcome {
        /** Checks the components; see the class description for what each must hold. */
        public Paused {
            Objects.requireNonNull(executionId, "executionId");
            pending = List.copyOf(pending);
        }

        @Override
        public String status() {
            return "paused";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = envelope(this);
            ArrayNode actions = json.putArray("pending");
            pending.forEach(p -> actions.add(p.toJson()));
            return json;
        }
    }

    /**
     * The run failed: the program threw, a step was refused before it could be logged, or a replay
     * diverged from the log (then nothing ran).
     *
     * @param error what went wrong, redacted, as a model may read it: without Java class names
     *              ({@link dev.toolgate.json.ModelText}; the run's record keeps them)
     * @param logs  the program's log lines
     */
    record Failed(String executionId, String error, List<String> logs) implements ExecutionOutcome {
        /** Checks the components; see the class description for what each must hold. */
        public Failed {
            Objects.requireNonNull(executionId, "executionId");
            error = dev.toolgate.json.ModelText.withoutClassNames(Objects.requireNonNull(error, "error"));
            logs = List.copyOf(logs);
        }

        @Override
        public String status() {
            return "failed";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = envelope(this);
            json.put("error", error);
            json.set("logs", lines(logs));
            return json;
        }
    }

    /**
     * Nothing happened: the run was not paused (it completed, was rejected, rolled back, expired, or
     * another approval resumed it first, perhaps on another instance). Refresh, do not retry.
     *
     * @param current where the run is now
     */
    record NotPaused(String executionId, ExecutionStatus current) implements ExecutionOutcome {
        /** Checks the components; see the class description for what each must hold. */
        public NotPaused {
            Objects.requireNonNull(executionId, "executionId");
            Objects.requireNonNull(current, "current");
        }

        @Override
        public String status() {
            return "not_paused";
        }

        /** For the operator or the model. */
        public String message() {
            return current == ExecutionStatus.PAUSED
                    ? "Execution " + executionId + " moved on and waits at another step now; nothing was changed. Refresh."
                    : "Execution " + executionId + " is not paused (" + current.wireName() + "); nothing was changed";
        }

        @Override
        public ObjectNode toJson() {
            ObjectNode json = envelope(this);
            json.put("current", current.wireName());
            json.put("message", message());
            return json;
        }
    }

    private static ObjectNode envelope(ExecutionOutcome outcome) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("status", outcome.status());
        json.put("executionId", outcome.executionId());
        return json;
    }

    private static ArrayNode lines(List<String> logs) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        logs.forEach(array::add);
        return array;
    }
}
