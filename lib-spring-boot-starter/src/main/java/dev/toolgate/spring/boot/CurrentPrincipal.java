package dev.toolgate.spring.boot;

import dev.toolgate.access.Principal;
import java.util.Optional;

/**
 * Who the current request is for: the principal whose tools a model is offered and whose calls the
 * gate checks. With Spring Security on the classpath the starter reads the request's
 * {@code Authentication} through {@link ToolgatePrincipalMapper}; without it the application defines
 * this bean. There is no default that lets everybody in: without either, the model is offered no
 * tools.
 *
 * <p>Called on the thread that runs the chat request (Spring AI's {@code ChatClient.call()} runs its
 * tools there); a streaming request's tools run on other threads, where a thread-bound security
 * context is empty and so no tools are offered: pass the principal in the request's tool context then.
 */
@FunctionalInterface
public interface CurrentPrincipal {

    /** The principal of the current request, or empty when nobody is signed in. */
    Optional<Principal> get();
}
