package dev.toolgate.call;

/** The proposal is no longer pending: an operator rejected it or replaced it with an edited one. */
public class ProposalClosedException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    public ProposalClosedException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "not_pending";
    }
}
