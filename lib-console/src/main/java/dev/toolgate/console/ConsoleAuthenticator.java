package dev.toolgate.console;

import dev.toolgate.call.CallContext;
import java.util.Optional;

/**
 * The host's sign-in for the console: turns what a person typed into the {@link CallContext} they act
 * in (principal, tenant). The console never sees a password store; it keeps only the returned context
 * in a server-side session.
 *
 * <p>Only principals holding the gate's approver rule see the inbox, the audit and the sources; every
 * decision is re-checked by the gate on the server, with the context {@link #current} returns at that
 * moment. Implementations must compare secrets in constant time and must not say which part of a
 * login was wrong (the console answers every failure with the same message and throttles failures per
 * address).
 */
@FunctionalInterface
public interface ConsoleAuthenticator {

    /**
     * Checks a sign-in.
     *
     * @return the context the person acts in, or empty to refuse
     */
    Optional<CallContext> authenticate(ConsoleLogin login);

    /**
     * The signed-in person's context now, called on every request of their session, so rights the
     * host revoked (or an account it disabled) take effect at once rather than at session expiry.
     * The default keeps the context from sign-in.
     *
     * @param signedIn the context {@link #authenticate} returned
     * @return the current context, or empty to end the session
     */
    default Optional<CallContext> current(CallContext signedIn) {
        return Optional.of(signedIn);
    }
}
