package dev.toolgate.call;

/** No proposal has the id in the token (or it belongs to another tenant). */
public class UnknownProposalException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public UnknownProposalException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "unknown_proposal";
    }
}
