package dev.toolgate.mcp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Host} header check, a defence against DNS rebinding beside the {@code Origin} check: a
 * page on {@code evil.example} whose name resolves to 127.0.0.1 reaches a loopback server with
 * {@code Host: evil.example}, which is refused here before anything else is looked at.
 *
 * <ul>
 *   <li>Exactly one {@code Host} header, of the form {@code name}, {@code name:port}, {@code [ipv6]} or
 *       {@code [ipv6]:port}; anything else (missing, repeated, empty, a bad port) is malformed: 400.</li>
 *   <li>Default, when bound to a loopback address: {@code localhost}, {@code 127.0.0.1}, {@code [::1]}
 *       and the bound address, each with the bound port written out (no port means port 80, so only
 *       a server bound to port 80 accepts it). Names compare case-insensitively; a trailing dot
 *       ({@code localhost.}) is a different name and refused.</li>
 *   <li>Default, when bound to another address (such as {@code 0.0.0.0}): no check, as the server cannot
 *       know its public names; configure them with {@code allowedHosts}.</li>
 *   <li>Configured ({@code allowedHosts}): an entry {@code name} admits that name on any port, an entry
 *       {@code name:port} only on that port; {@code *} turns the check off. The loopback defaults stay
 *       allowed when bound to loopback.</li>
 * </ul>
 *
 * A name outside these gets 403.
 */
final class HttpHosts {

    /** The outcome of a check. */
    enum Verdict {
        ALLOWED, MALFORMED, FORBIDDEN
    }

    /** The message of a 400 for a missing, repeated or malformed {@code Host} (both endpoints). */
    static final String MALFORMED_MESSAGE = "Bad Request: send exactly one valid Host header";
    /** The message of a 403 for a name not allowed (both endpoints). */
    static final String FORBIDDEN_MESSAGE = "Forbidden: host not allowed";

    private static final Pattern HOST = Pattern.compile(
            "(?<name>[A-Za-z0-9._-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}])(?::(?<port>[0-9]{1,5}))?");

    private final boolean any;
    private final Set<String> anyPort = new HashSet<>();
    private final Set<String> exact = new HashSet<>();

    /**
     * @param bound   the bound address, with the actual port
     * @param allowed the configured entries, {@code name} or {@code name:port} (lower case), or {@code *}
     */
    HttpHosts(InetSocketAddress bound, Set<String> allowed) {
        InetAddress address = bound.getAddress();
        boolean loopback = address != null && address.isLoopbackAddress();
        this.any = allowed.contains("*") || (!loopback && allowed.isEmpty());
        for (String entry : allowed) {
            Matcher m = HOST.matcher(entry);
            if (!m.matches()) {
                continue; // "*"
            }
            if (m.group("port") == null) {
                anyPort.add(normalize(m.group("name")));
            } else {
                exact.add(normalize(m.group("name")) + ":" + Integer.parseInt(m.group("port")));
            }
        }
        if (loopback) {
            String literal = address.getHostAddress();
            literal = literal.contains(":") ? "[" + literal + "]" : literal;
            for (String name : List.of("localhost", "127.0.0.1", "[::1]", literal)) {
                exact.add(normalize(name) + ":" + bound.getPort());
            }
        }
    }

    /**
     * The configured entries of a builder's {@code allowedHosts}, in lower case.
     *
     * @throws IllegalArgumentException for an entry that is not {@code name}, {@code name:port},
     *                                  {@code [ipv6]}, {@code [ipv6]:port} or {@code *}
     */
    static Set<String> entries(String... hosts) {
        Set<String> entries = new HashSet<>();
        for (String host : hosts) {
            if (host == null || !(host.equals("*") || HOST.matcher(host).matches())) {
                throw new IllegalArgumentException("allowedHosts entries must be name, name:port, [ipv6], [ipv6]:port or *, got '"
                        + host + "'");
            }
            entries.add(host.toLowerCase(Locale.ROOT));
        }
        return Set.copyOf(entries);
    }

    /** Checks the values of the request's {@code Host} headers ({@code null} when there are none). */
    Verdict check(List<String> values) {
        if (values == null || values.size() != 1) {
            return Verdict.MALFORMED;
        }
        Matcher m = HOST.matcher(values.get(0).strip());
        if (!m.matches()) {
            return Verdict.MALFORMED;
        }
        String name = normalize(m.group("name"));
        int port = 80;
        if (m.group("port") != null) {
            port = Integer.parseInt(m.group("port"));
            if (port < 1 || port > 65535) {
                return Verdict.MALFORMED;
            }
        }
        if (any) {
            return Verdict.ALLOWED;
        }
        return anyPort.contains(name) || exact.contains(name + ":" + port) ? Verdict.ALLOWED : Verdict.FORBIDDEN;
    }

    /** A header value fit for a log line: at most 100 characters, control characters replaced. */
    static String printable(String value) {
        if (value == null) {
            return "(none)";
        }
        String cut = value.length() > 100 ? value.substring(0, 100) + "..." : value;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }

    /** A name in lower case; an IPv6 literal in brackets in one canonical form. */
    private static String normalize(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.startsWith("[") ? "[" + compressed(lower.substring(1, lower.length() - 1)) + "]" : lower;
    }

    /** An IPv6 literal in one canonical form ({@code 0:0:0:0:0:0:0:1} and {@code ::1} alike), or as given if not one. */
    private static String compressed(String literal) {
        if (!literal.matches("[0-9A-Fa-f:.]+") || !literal.contains(":")) {
            return literal;
        }
        try {
            // a literal never causes a lookup
            return InetAddress.getByName(literal).getHostAddress().toLowerCase(Locale.ROOT);
        } catch (java.net.UnknownHostException e) {
            return literal;
        }
    }
}
