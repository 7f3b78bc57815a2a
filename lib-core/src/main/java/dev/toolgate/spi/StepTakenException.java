package dev.toolgate.spi;

/**
 * A store refused to log a step of a durable execution because that (execution, step) pair is
 * already stored: another runner of the same run got there first. The runner that gets it has lost
 * the run and stops without changing anything else.
 */
public final class StepTakenException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String executionId;
    private final int stepSeq;

    public StepTakenException(String executionId, int stepSeq) {
        super("Step " + stepSeq + " of execution " + executionId + " is already logged by another runner");
        this.executionId = executionId;
        this.stepSeq = stepSeq;
    }

    /** The run. */
    public String executionId() {
        return executionId;
    }

    /** The step. */
    public int stepSeq() {
        return stepSeq;
    }
}
