package dev.toolgate.console;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.call.CallContext;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of a console behind the application's own sign-in ({@link ToolgateConsole.Builder#hostSignIn()}).
 * The host's security layer authenticates every request and says as whom
 * ({@link ConsoleRequest#authenticatedAs()}). A console session is opened from that, and it stands only
 * while each of its requests is authenticated as the same principal (kind and id) in the same tenant;
 * its context is then the host's context of that request, so rights the application takes away apply
 * at the next request. Anything else ends the session for good.
 */
final class HostSignIn {

    static final String HOST = "host";
    static final String CONSOLE = "console";
    static final String SIGN_IN_HERE = "Sign in through the application.";
    static final String NOT_SIGNED_IN = "Not signed in to the application.";
    static final String SIGNED_OUT = "Signed out of the console; your application sign-in is unchanged.";

    private static final Logger LOG = LoggerFactory.getLogger(HostSignIn.class);

    private HostSignIn() {
    }

    /**
     * The host's context of this request if it is the session's person in the session's tenant; empty
     * (the session ends) if the request is not host-authenticated or is someone else's.
     */
    static Optional<CallContext> current(CallContext signedIn, ConsoleRequest request) {
        Optional<CallContext> now = request.authenticatedAs();
        if (now.isEmpty()) {
            LOG.info("Console session of {} ended: the request is not authenticated by the application",
                    signedIn.principal().key());
            return Optional.empty();
        }
        if (!samePerson(signedIn, now.get())) {
            LOG.info("Console session of {} (tenant {}) ended: the application authenticated the request as {} (tenant {})",
                    signedIn.principal().key(), signedIn.tenantId(), now.get().principal().key(), now.get().tenantId());
            return Optional.empty();
        }
        return now;
    }

    /** The same principal (kind and id) in the same tenant (or both without one). */
    static boolean samePerson(CallContext a, CallContext b) {
        return a.principal().key().equals(b.principal().key()) && Objects.equals(a.tenantId(), b.tenantId());
    }

    /** Who may have a console session at all: a principal that is not a service (as for the console's own sign-in). */
    static boolean mayOpen(CallContext context) {
        return context != null && context.principal() != null && context.principal().kind() != PrincipalKind.SERVICE;
    }
}
