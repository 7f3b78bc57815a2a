package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the bearer token of an MCP request over Streamable HTTP into the {@link Principal} the call
 * runs as. The host implements it (check a session, an API key, a JWT, an OAuth introspection);
 * Toolgate only reads the {@code Authorization: Bearer <token>} header and asks.
 *
 * <p>It is called for every HTTP request, so a principal's rules are always current: a rule the host
 * revoked is gone on the next {@code tools/list} or {@code tools/call}. A request without a token, or
 * whose token this returns empty for, gets HTTP 401 with a {@code WWW-Authenticate: Bearer} header.
 *
 * <p>Implementations must be thread-safe and should be fast; compare secrets in constant time.
 */
@FunctionalInterface
public interface McpAuthenticator {

    /**
     * The principal for a bearer token.
     *
     * @param bearerToken the token after {@code Bearer }, never null or blank
     * @return the principal, or empty if the token is not valid
     */
    Optional<Principal> authenticate(String bearerToken);

    /**
     * A fixed table of tokens, compared in constant time. For demos and tests; a real host checks its
     * own credentials.
     */
    static McpAuthenticator fixed(Map<String, Principal> principalsByToken) {
        Map<String, Principal> table = Map.copyOf(principalsByToken);
        return token -> {
            byte[] given = token.getBytes(StandardCharsets.UTF_8);
            Principal found = null;
            for (Map.Entry<String, Principal> entry : table.entrySet()) {
                if (MessageDigest.isEqual(entry.getKey().getBytes(StandardCharsets.UTF_8), given)) {
                    found = entry.getValue();
                }
            }
            return Optional.ofNullable(found);
        };
    }
}
