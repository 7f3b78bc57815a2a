package dev.toolgate.policy;

import java.util.Locale;

/** Where a resolved {@link Mode} came from, highest priority first. */
public enum ModeSource {
    /** An override stored for the automation running the call. */
    AUTOMATION_OVERRIDE,
    /** An override stored as the tenant's (organization's) default. */
    TENANT_DEFAULT,
    /** No override: inferred from the tool's effect (READ allows, MUTATE and DESTRUCTIVE require approval). */
    INFERRED_DEFAULT;

    /** {@code automation_override}, {@code tenant_default} or {@code inferred_default}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
