package dev.toolgate.call;

/**
 * The proposal is a step of a durable execution: it is approved, rejected or rolled back through its
 * execution (the facade routes inbox decisions there), never applied by token or edited on its own,
 * since that would break the run's replay. Nothing changes.
 */
public final class StepOfExecutionException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final String executionId;

    public StepOfExecutionException(String callId, String executionId, int seq) {
        super("Proposal " + callId + " is step " + seq + " of execution " + executionId
                + "; decide on it through the execution (approve, reject or roll back the run)");
        this.executionId = executionId;
    }

    /** The execution the proposal belongs to. */
    public String executionId() {
        return executionId;
    }

    @Override
    public String code() {
        return "step_of_execution";
    }
}
