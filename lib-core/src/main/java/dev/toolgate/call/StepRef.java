package dev.toolgate.call;

import java.util.Objects;

/**
 * Which step of a durable execution a call is: the run's id and the step's number, from 1. Each
 * (execution, step) is logged once; see {@code ProposeApplyEngine.callStep} in {@code dev.toolgate.gate}.
 *
 * @param executionId the run
 * @param seq         the step, from 1
 */
public record StepRef(String executionId, int seq) {

    /** Checks the components; see the class description for what each must hold. */
    public StepRef {
        Objects.requireNonNull(executionId, "executionId");
        if (seq < 1) {
            throw new IllegalArgumentException("a step's seq starts at 1, got " + seq);
        }
    }
}
