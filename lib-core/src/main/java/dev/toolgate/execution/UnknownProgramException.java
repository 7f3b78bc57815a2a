package dev.toolgate.execution;

import dev.toolgate.call.ProposeApplyException;

/** No program of that name is registered on this instance. Nothing changes. */
public final class UnknownProgramException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public UnknownProgramException(String program) {
        super("No program named '" + program + "' is registered on this instance");
    }

    @Override
    public String code() {
        return "unknown_program";
    }
}
