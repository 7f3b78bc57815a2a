package dev.toolgate.audit;

import java.util.Objects;

/**
 * A source tool whose schema (or contract) changed between two listings of its source, for listeners
 * ({@link ToolCallListener#onToolDrifted}): metadata only, no tenant, never the schema itself. Only a
 * change of the fingerprint counts: new wording, defaults, enum values or key order are not drift
 * ({@link dev.toolgate.tool.RegisteredTool#schemaFingerprint()}).
 *
 * <p>The change makes the tool drift from every tenant's review of it: under an ALLOW policy it needs
 * approval again until an operator re-confirms it ({@code Toolgate.confirmSchema}).
 *
 * @param toolName            the qualified tool name, such as {@code mcp:github.create_issue}
 * @param sourceId            the source that lists it, such as {@code mcp:github}
 * @param previousFingerprint the fingerprint it was listed with before
 * @param fingerprint         the fingerprint it is listed with now
 */
public record ToolDrift(String toolName, String sourceId, String previousFingerprint, String fingerprint) {

    /** Checks the components; see the class description for what each must hold. */
    public ToolDrift {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(sourceId, "sourceId");
        Objects.requireNonNull(previousFingerprint, "previousFingerprint");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (previousFingerprint.equals(fingerprint)) {
            throw new IllegalArgumentException("a drift changes the fingerprint of " + toolName);
        }
    }
}
