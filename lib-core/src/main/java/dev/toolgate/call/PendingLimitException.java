package dev.toolgate.call;

/** The session already holds the maximum number of pending proposals; resolve some before proposing more. */
public class PendingLimitException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public PendingLimitException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "pending_limit";
    }
}
