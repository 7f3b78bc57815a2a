package dev.toolgate.policy;

import java.util.Locale;

/** Where a stored mode override applies. */
public enum OverrideScope {
    /** One automation; highest priority. */
    AUTOMATION,
    /** A tenant (organization) default. */
    TENANT;

    /** {@code automation} or {@code tenant}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
