package dev.toolgate.call;

/** The proposal's time to live passed; it can never be applied. Propose again. */
public class TokenExpiredException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public TokenExpiredException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "expired";
    }
}
