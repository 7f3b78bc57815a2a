package dev.toolgate.execution;

import dev.toolgate.call.ProposeApplyException;

/** No execution with that id exists in the caller's tenant. Nothing changes. */
public final class UnknownExecutionException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public UnknownExecutionException(String executionId) {
        super("No execution " + executionId);
    }

    @Override
    public String code() {
        return "unknown_execution";
    }
}
