package dev.toolgate.access;

import java.util.Optional;

/**
 * Finds a principal as it is now (its current access rules and attributes) from the reference the
 * audit trail keeps. The host implements it from its own user store, and gives it to the builder or
 * lists it in {@code META-INF/services/dev.toolgate.access.PrincipalDirectory}.
 *
 * <p>Durable executions use it when a run goes on without its principal at hand: a replay after an
 * operator's approval, or another instance taking over a run whose instance stopped. With a
 * directory, the run's later steps are authorized with the principal's current rules (a revoked rule
 * stops the run); without one, with the rules it held when the run started.
 */
@FunctionalInterface
public interface PrincipalDirectory {

    /** The principal as it is now, or empty if it no longer exists. */
    Optional<Principal> find(PrincipalRef principal);
}
