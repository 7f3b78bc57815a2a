package dev.toolgate.call;

/** The token is not of the form {@code propose:<uuid>.<64 hex>}; nothing was looked up. */
public class MalformedTokenException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public MalformedTokenException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "malformed_token";
    }
}
