package dev.toolgate.call;

/** The proposal was already applied (by this or any other instance); a token works once. */
public class TokenAlreadyUsedException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public TokenAlreadyUsedException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "already_used";
    }
}
