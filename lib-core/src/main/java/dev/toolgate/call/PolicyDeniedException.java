package dev.toolgate.call;

/**
 * An explicit {@code propose} of a tool whose mode is DENY. The refusal is recorded as {@code denied}.
 * (A plain call returns a {@link Denied} result instead.)
 */
public class PolicyDeniedException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final transient Denied denied;

    public PolicyDeniedException(Denied denied) {
        super(denied.message());
        this.denied = denied;
    }

    /** The recorded refusal. */
    public Denied denied() {
        return denied;
    }

    @Override
    public String code() {
        return "denied";
    }
}
