package dev.toolgate.spring.boot;

import dev.toolgate.access.Principal;
import java.util.Optional;
import org.springframework.security.core.Authentication;

/**
 * Turns Spring Security's {@link Authentication} into the Toolgate {@link Principal} a call runs as.
 * The starter's default ({@code toolgate.security.*}) takes the name as the principal's id and the
 * granted authorities as access rules:
 *
 * <ul>
 *   <li>each authority is a rule of its own name, with {@code SCOPE_} removed
 *       ({@code SCOPE_incident.read} is {@code incident.read}), unless
 *       {@code toolgate.security.authorities-as-rules=false};</li>
 *   <li>{@code toolgate.security.authority-rules.<authority>} adds rules for an authority
 *       ({@code ROLE_SUPPORT: incident.read, incident.create});</li>
 *   <li>the console's operator role ({@code toolgate.console.operator-role}, as
 *       {@code ROLE_<role>}) adds the gate's approver rule.</li>
 * </ul>
 *
 * An anonymous or unauthenticated {@code Authentication} is nobody. Define a bean of this type to map
 * differently (a tenant attribute, a service account for machine clients).
 */
@FunctionalInterface
public interface ToolgatePrincipalMapper {

    /**
     * The principal for {@code authentication}.
     *
     * @param authentication an authenticated, non-anonymous authentication
     * @return the principal, or empty to treat the request as nobody's
     */
    Optional<Principal> principalOf(Authentication authentication);
}
