package dev.toolgate.access;

import java.util.Objects;

/**
 * Who did something, as the audit trail records it: kind and id only (never rules or attributes).
 *
 * @param kind the principal's kind
 * @param id   the principal's id
 */
public record PrincipalRef(PrincipalKind kind, String id) {

    /** Checks the components; see the class description for what each must hold. */
    public PrincipalRef {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
    }

    /** The reference to a principal. */
    public static PrincipalRef of(Principal principal) {
        return new PrincipalRef(principal.kind(), principal.id());
    }

    /** {@code <kind>:<id>}, the same key {@link Principal#key()} gives. */
    public String key() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + id;
    }

    @Override
    public String toString() {
        return key();
    }
}
