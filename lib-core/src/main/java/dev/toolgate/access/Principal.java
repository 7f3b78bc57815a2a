package dev.toolgate.access;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The caller a tool call is made for: a kind, a stable id, the access rules it holds and free-form
 * attributes. Immutable.
 *
 * <p>Access rules are fully qualified ids such as {@code incident.incident.read}. The rule {@value #ALL}
 * is the admin escape: a principal holding it satisfies every rule.
 *
 * @param kind        user, application or service
 * @param id          stable identifier, 1 to 200 characters without control characters
 * @param accessRules the rules the principal holds (copied, sorted)
 * @param attributes  extra facts a host wants tools to see, such as a display name (copied, sorted);
 *                    never stored in the audit trail
 */
public record Principal(PrincipalKind kind, String id, Set<String> accessRules, Map<String, String> attributes) {

    /** The admin escape rule: holding it satisfies every required rule. */
    public static final String ALL = "*";

    private static final int MAX_ID_LENGTH = 200;
    private static final Pattern RULE = Pattern.compile("[A-Za-z0-9_.:*-]{1,200}");

    /** Checks the components; see the class description for what each must hold. */
    public Principal {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        if (id.isBlank() || id.length() > MAX_ID_LENGTH || id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(
                    "principal id must be 1 to " + MAX_ID_LENGTH + " characters without control characters: '" + id + "'");
        }
        accessRules = Collections.unmodifiableSortedSet(new TreeSet<>(validRules(accessRules)));
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes == null ? Map.of() : attributes));
    }

    /** A user holding the given rules. */
    public static Principal user(String id, String... accessRules) {
        return new Principal(PrincipalKind.USER, id, Set.of(accessRules), Map.of());
    }

    /** An application holding the given rules. */
    public static Principal application(String id, String... accessRules) {
        return new Principal(PrincipalKind.APPLICATION, id, Set.of(accessRules), Map.of());
    }

    /** A service principal. It may hold rules, but it is never offered or allowed a tool. */
    public static Principal service(String id, String... accessRules) {
        return new Principal(PrincipalKind.SERVICE, id, Set.of(accessRules), Map.of());
    }

    /** True if this principal satisfies {@code rule}, directly or through {@value #ALL}. */
    public boolean holds(String rule) {
        return accessRules.contains(ALL) || accessRules.contains(rule);
    }

    /**
     * This principal narrowed to a set of granted scopes, as OAuth scope narrowing does: the result
     * holds a rule only if this principal holds it and the scopes grant it ({@value #ALL} in the scopes
     * grants every rule this principal holds; {@value #ALL} held by this principal is narrowed to the
     * scopes). A narrowed principal can only ever satisfy fewer rules, never more.
     */
    public Principal narrowedTo(Collection<String> scopes) {
        Set<String> granted = new TreeSet<>(validRules(scopes));
        Set<String> narrowed = new TreeSet<>();
        boolean scopesGrantAll = granted.contains(ALL);
        for (String rule : accessRules) {
            if (scopesGrantAll || granted.contains(rule)) {
                narrowed.add(rule);
            }
        }
        if (accessRules.contains(ALL)) {
            narrowed.addAll(granted);
        }
        return new Principal(kind, id, narrowed, attributes);
    }

    /** A copy holding exactly the given rules (for example after the host revoked one). */
    public Principal withAccessRules(String... rules) {
        return new Principal(kind, id, Set.of(rules), attributes);
    }

    /** A copy with one more attribute. */
    public Principal withAttribute(String name, String value) {
        Map<String, String> copy = new TreeMap<>(attributes);
        copy.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return new Principal(kind, id, accessRules, copy);
    }

    /**
     * The stable key this principal is metered and recorded under: {@code <kind>:<id>}, for example
     * {@code user:alice}.
     */
    public String key() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + id;
    }

    @Override
    public String toString() {
        return key();
    }

    private static Collection<String> validRules(Collection<String> rules) {
        if (rules == null) {
            return Set.of();
        }
        for (String rule : rules) {
            if (rule == null || !RULE.matcher(rule).matches()) {
                throw new IllegalArgumentException("invalid access rule '" + rule
                        + "': use a fully qualified id such as incident.incident.read, or " + ALL);
            }
        }
        return rules;
    }

}
