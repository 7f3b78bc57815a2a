package dev.toolgate.access;

import java.util.Set;

/**
 * Something that requires access rules: a registered tool, or anything else a host wants the same
 * predicate to protect.
 */
public interface Guarded {

    /** A name for messages, such as the qualified tool name. */
    String name();

    /** Every rule a principal must hold (all of them); empty means any user or application. */
    Set<String> requiredAccessRules();
}
