package dev.toolgate.policy;

import java.util.Locale;

/** What policy says about a tool, before the conversation's permission mode is considered. */
public enum Mode {
    /** Permitted without a human decision for this call. */
    ALLOW,
    /** A human (an operator) must approve each call. */
    REQUIRE_APPROVAL,
    /** Never runs; calls are refused and recorded as denied. */
    DENY;

    /** The lower-case name, computed once: it is read on every call (tags, logs, rows). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** {@code allow}, {@code require_approval} or {@code deny}. */
    public String wireName() {
        return wireName;
    }

    /** Parses a {@linkplain #wireName() wire name}, case-insensitively. */
    public static Mode fromWireName(String name) {
        for (Mode mode : values()) {
            if (mode.name().equalsIgnoreCase(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + name + "': expected allow, require_approval or deny");
    }
}
