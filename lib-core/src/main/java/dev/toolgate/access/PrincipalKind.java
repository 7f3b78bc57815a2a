package dev.toolgate.access;

/** What kind of caller a {@link Principal} is. */
public enum PrincipalKind {
    /** A human user acting through a model. */
    USER,
    /** An application (an API client or an OAuth client) acting on its own behalf. */
    APPLICATION,
    /**
     * A trusted backend service. Service principals never drive tools: the resolver offers and allows
     * them nothing, so every proposal is bound to a real user or application.
     */
    SERVICE
}
