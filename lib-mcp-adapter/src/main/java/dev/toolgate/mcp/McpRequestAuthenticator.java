package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds the {@link Principal} of an MCP request that arrives through a host's servlet container
 * ({@link ToolgateMcpServer#servlet}): from its bearer token ({@link #bearer}), or from whatever the
 * host's own security already established (a Spring Security or container login, a client
 * certificate). Toolgate only asks; the host decides.
 *
 * <p>It is called for every HTTP request, before the MCP SDK sees it, so a principal's rules are
 * always current. A request it returns empty for (or throws on) gets HTTP 401 with a
 * {@code WWW-Authenticate: Bearer} header and never reaches the SDK.
 *
 * <p>Implementations must be thread-safe and should be fast; compare secrets in constant time. They
 * must not read the request's body.
 */
@FunctionalInterface
public interface McpRequestAuthenticator {

    /**
     * The principal a request runs as.
     *
     * @param request the servlet request; read its headers, attributes or {@code getUserPrincipal()}, not its body
     * @return the principal, or empty if the request is not authenticated
     */
    Optional<Principal> authenticate(HttpServletRequest request);

    /**
     * The principal from the request's {@code Authorization: Bearer <token>} header through
     * {@code authenticator}, the same rule as the standalone server's: a missing, blank or non-Bearer
     * header is unauthenticated, and the authenticator is not asked.
     */
    static McpRequestAuthenticator bearer(McpAuthenticator authenticator) {
        Objects.requireNonNull(authenticator, "authenticator");
        return request -> {
            String header = request.getHeader("Authorization");
            if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
                return Optional.empty();
            }
            String token = header.substring(7).trim();
            return token.isEmpty() ? Optional.empty() : authenticator.authenticate(token);
        };
    }
}
