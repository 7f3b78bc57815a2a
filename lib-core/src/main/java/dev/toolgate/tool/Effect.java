package dev.toolgate.tool;

import java.util.Locale;

/**
 * What calling a tool does to the world. Every tool declares its effect; Toolgate never infers it
 * from a name or a verb, because "update" can be harmless and "sync" can delete.
 */
public enum Effect {
    /** Reads only. Runs directly when policy allows. */
    READ,
    /** Creates or changes state. Never runs from a call: it is proposed, then applied. */
    MUTATE,
    /**
     * Deletes or irreversibly changes state. Like {@link #MUTATE}, and in addition never applied
     * automatically in any permission mode: a human (or the token holder) always confirms.
     */
    DESTRUCTIVE;

    /** The lower-case name, computed once: it is read on every call (tags, logs, rows). */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** True for {@link #MUTATE} and {@link #DESTRUCTIVE}. */
    public boolean mutates() {
        return this != READ;
    }

    /** The lower-case wire name: {@code read}, {@code mutate} or {@code destructive}. */
    public String wireName() {
        return wireName;
    }

    /** Parses a {@linkplain #wireName() wire name} (case-insensitive). */
    public static Effect fromWireName(String name) {
        for (Effect effect : values()) {
            if (effect.name().equalsIgnoreCase(name)) {
                return effect;
            }
        }
        throw new IllegalArgumentException("unknown effect '" + name + "': expected read, mutate or destructive");
    }
}
