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

    /** The lower-case name, computed once: it is read on every call (tags, logs, rows). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** {@code automation_override}, {@code tenant_default} or {@code inferred_default}. */
    public String wireName() {
        return wireName;
    }
}
