package dev.toolgate.call;

import tools.jackson.databind.node.ObjectNode;

/**
 * What a successful call produced: it {@linkplain Executed executed}, is a {@linkplain Proposal
 * proposal} awaiting an operator, was {@linkplain Applied applied}, or was {@linkplain Denied denied}
 * by policy. Faults (unknown tool, forbidden, over budget, invalid input, failed execution) are
 * exceptions instead.
 */
public sealed interface CallResult permits Executed, Proposal, Applied, Denied {

    /** The audit record id. */
    String callId();

    /** The qualified tool name. */
    String toolName();

    /** {@code executed}, {@code awaiting_operator}, {@code applied} or {@code denied}. */
    String status();

    /** The result as JSON for a transport (structured content for MCP, a tool message in chat). */
    ObjectNode toJson();

    /** The fields every result's JSON starts with: {@code status}, {@code callId}, {@code tool}. */
    static ObjectNode envelope(CallResult result) {
        ObjectNode json = dev.toolgate.json.Json.object();
        json.put("status", result.status());
        json.put("callId", result.callId());
        json.put("tool", result.toolName());
        return json;
    }
}
