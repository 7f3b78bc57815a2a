package dev.toolgate.codemode;

import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The gate's refusals as the errors a script can catch: DeniedError, ValidationError, ToolError. */
final class Failures {

    private Failures() {
    }

    static Sandbox.ToolFailure denied(String tool, PolicyDeniedException e) {
        ObjectNode data = Json.object();
        data.put("reason", e.denied().reason());
        data.put("callId", e.denied().callId());
        return new Sandbox.ToolFailure("DeniedError", tool + " was denied by policy (" + e.denied().reason() + ")",
                Json.write(data));
    }

    static Sandbox.ToolFailure invalid(String tool, ToolValidationException e) {
        ObjectNode data = Json.object();
        ArrayNode issues = data.putArray("issues");
        StringBuilder message = new StringBuilder("invalid input for ").append(tool).append(':');
        for (ValidationIssue issue : e.issues()) {
            issues.addObject().put("path", issue.path()).put("message", issue.message());
            message.append(' ').append(issue.path().isEmpty() ? "(input)" : issue.path()).append(' ').append(issue.message())
                    .append(';');
        }
        message.setLength(message.length() - 1);
        return new Sandbox.ToolFailure("ValidationError", message.toString(), Json.write(data));
    }

    static Sandbox.ToolFailure failed(String tool, ToolExecutionException e) {
        ObjectNode data = Json.object();
        if (e.callId() != null) {
            data.put("callId", e.callId());
        }
        data.put("timedOut", e.timedOut());
        return new Sandbox.ToolFailure("ToolError", tool + " failed: " + e.getMessage(), Json.write(data));
    }
}
