package dev.toolgate.call;

import java.util.Set;

/**
 * Separation of duties ({@code requireDistinctApprover}) refuses a principal deciding on a proposal
 * they made: applying its token, approving it or editing it. Another principal must decide. Nothing
 * changes; the proposal stays pending.
 */
public final class SeparationOfDutiesException extends ForbiddenException {

    private static final long serialVersionUID = 1L;

    public SeparationOfDutiesException(String message, String toolName) {
        super(message, toolName, Set.of());
    }

    @Override
    public String code() {
        return "separation_of_duties";
    }
}
