package dev.toolgate.policy;

import dev.toolgate.access.PrincipalRef;
import java.time.Instant;
import java.util.Objects;

/**
 * The schema of a tool as a tenant's operators last reviewed it: the baseline for drift detection.
 * It is written when a dynamic tool is first seen, when an operator stores an override for a tool,
 * and when an operator re-confirms a drifted tool.
 *
 * @param tenantId    the tenant, or {@code ""} for calls without one
 * @param toolName    the qualified tool name
 * @param fingerprint the normalized schema fingerprint at review time
 * @param reviewedBy  who reviewed it ({@code service:toolgate} for a first-seen baseline)
 * @param reviewedAt  when (store time; may be null before the store sets it)
 */
public record ToolReview(String tenantId, String toolName, String fingerprint, PrincipalRef reviewedBy,
                         Instant reviewedAt) {

    /** Checks the components; see the class description for what each must hold. */
    public ToolReview {
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(reviewedBy, "reviewedBy");
    }
}
