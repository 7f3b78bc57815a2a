package dev.toolgate.context.web;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * A URL the {@link SsrfGuard} accepted, taken apart: what to connect to and what to send.
 *
 * @param scheme        {@code http} or {@code https}
 * @param host          the host, lower-case ASCII without a trailing dot: a DNS name, a dotted-quad
 *                      IPv4 address or an IPv6 address in its canonical text form (without brackets)
 * @param port          the port, 1-65535 (80 or 443 when the URL names none)
 * @param requestTarget the path and query to send, starting with {@code /}; the fragment is dropped
 * @param literal       the address when the host is an IP literal, already checked; null for a name,
 *                      which must still be resolved and checked with {@link SsrfGuard#checkResolved}
 */
public record Target(String scheme, String host, int port, String requestTarget, InetAddress literal) {

    /** Checks the components; see the class description for what each must hold. */
    public Target {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(requestTarget, "requestTarget");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
    }

    /** True for {@code https}. */
    public boolean https() {
        return scheme.equals("https");
    }

    /** True if the host is an IP literal rather than a name. */
    public boolean isLiteral() {
        return literal != null;
    }

    /** The value of the {@code Host} header: the host, bracketed if IPv6, and the port if not the default. */
    public String hostHeader() {
        String h = literal instanceof Inet6Address ? "[" + host + "]" : host;
        return port == (https() ? 443 : 80) ? h : h + ":" + port;
    }
}
