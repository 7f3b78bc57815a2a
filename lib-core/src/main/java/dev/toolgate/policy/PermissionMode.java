package dev.toolgate.policy;

/**
 * The conversation's permission mode: what a mutation does when no policy decided it explicitly.
 * It is stated to the model once (in the system prompt) and never changes tool descriptions.
 */
public enum PermissionMode {
    /** Mutations wait for an operator as proposals with a confirm card. The default. */
    APPROVE,
    /**
     * MUTATE tools whose mode is the inferred default are proposed and applied in one step, and the
     * result shows what changed (never silent). DESTRUCTIVE tools still wait.
     */
    AUTO
}
