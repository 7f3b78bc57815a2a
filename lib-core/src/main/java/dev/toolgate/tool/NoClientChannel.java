package dev.toolgate.tool;

import tools.jackson.databind.node.ObjectNode;

/** {@link ClientChannel#none()}: progress and log do nothing, sampling and elicitation are refused. */
final class NoClientChannel implements ClientChannel {

    static final NoClientChannel NONE = new NoClientChannel(
            "the call did not come from an MCP client (plain Java, code mode or another transport)");
    static final NoClientChannel DRY_RUN = new NoClientChannel(
            "a dry-run must not talk to the user before consent");

    private final String reason;

    private NoClientChannel(String reason) {
        this.reason = reason;
    }

    @Override
    public void progress(double progress, Double total, String message) {
        // nobody to tell
    }

    @Override
    public void log(LogLevel level, String logger, Object data) {
        // nobody to tell
    }

    @Override
    public boolean canSample() {
        return false;
    }

    @Override
    public boolean canElicit() {
        return false;
    }

    @Override
    public SamplingResult sample(SamplingRequest request) {
        throw new ClientInteractionUnsupportedException("sampling", reason);
    }

    @Override
    public Elicitation elicit(String message, ObjectNode requestedSchema) {
        throw new ClientInteractionUnsupportedException("elicitation", reason);
    }

    @Override
    public String toString() {
        return "ClientChannel.none(" + reason + ")";
    }
}
