package dev.toolgate.call;

/** The token names a proposal but its nonce is wrong (compared in constant time): a forged or mistyped token. */
public class InvalidTokenException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public InvalidTokenException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "invalid_token";
    }
}
