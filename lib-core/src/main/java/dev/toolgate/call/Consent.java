package dev.toolgate.call;

import tools.jackson.databind.node.ObjectNode;

/**
 * Who gives the consent a {@link Proposal} waits for, as a transport or a chat adapter serves it. The
 * core does not decide this: the token a proposal carries works for whoever holds it, and the inbox
 * (or the console) lets an operator decide any proposal. An adapter chooses one of these and says it
 * in the proposal's status, so the model tells the user who must act.
 */
public enum Consent {

    /**
     * The user decides: the token goes to whoever shows the user the proposal (an MCP client that applies
     * it after the user agreed, a host's confirm card). Status {@code awaiting_user}. An operator can
     * still decide it in the inbox.
     */
    USER("awaiting_user"),

    /**
     * Only an operator decides, in the inbox or the console; the token never leaves the host, and the
     * model is offered no tool that applies or approves. Status {@code awaiting_operator}.
     */
    OPERATOR("awaiting_operator");

    private final String status;

    Consent(String status) {
        this.status = status;
    }

    /** The status of a proposal waiting for this consent: {@code awaiting_user} or {@code awaiting_operator}. */
    public String awaitingStatus() {
        return status;
    }

    /**
     * A durable run's outcome as a model reads it where this consent holds: a paused one ({@code status:
     * "paused"}) gets {@code awaiting} ({@code user} or {@code operator}) and a {@code next} that says who
     * decides the pending step; any other outcome is returned as it is.
     *
     * @param outcome the outcome's JSON ({@code ExecutionOutcome.toJson()}), changed in place
     * @return {@code outcome}
     */
    public ObjectNode tellRun(ObjectNode outcome) {
        if ("paused".equals(outcome.path("status").asString(""))) {
            outcome.put("awaiting", this == USER ? "user" : "operator");
            outcome.put("next", this == USER
                    ? "The run is paused; nothing of the pending step has happened. Tell the user the step's summary: "
                    + "it goes on once they approve it. Do not start the run again."
                    : "The run is paused; nothing of the pending step has happened. An operator approves or rejects it "
                    + "outside this conversation; tell the user its summary and that it awaits an operator. Do not start "
                    + "the run again.");
        }
        return outcome;
    }
}
