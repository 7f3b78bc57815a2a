package dev.toolgate.context.web;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The SSRF guard of {@code web.probeUrl}: pure functions that decide whether a URL may be fetched,
 * and fail closed. It has no state, does no I/O and never resolves a name; {@link UrlProbe} calls it
 * before and after resolving, and it can be used alone.
 *
 * <p>{@link #check(String)} parses the URL itself (never with {@code java.net.URI} or {@code URL},
 * whose leniency differs from other parsers) and refuses:
 * <ul>
 *   <li>schemes other than {@code http} and {@code https}, and URLs without {@code //authority};</li>
 *   <li>user info ({@code user:pass@}) of any kind;</li>
 *   <li>whitespace, control characters, backslashes and non-ASCII characters anywhere (an IDN host
 *       must be given in its {@code xn--} form), percent-encoded hosts, empty labels;</li>
 *   <li>ports outside 1-65535, empty ports and ports with leading zeros (any other port is allowed,
 *       since only public addresses can be reached);</li>
 *   <li>internal names: {@code localhost}, single-label names, and names under {@code localhost},
 *       {@code local}, {@code localdomain}, {@code internal}, {@code intranet}, {@code lan},
 *       {@code home}, {@code corp}, {@code private}, {@code home.arpa} and {@code arpa}, with or without
 *       a trailing dot;</li>
 *   <li>IPv4 literals in any form a resolver or browser might accept (decimal {@code 2130706433},
 *       octal {@code 0177.0.0.1}, hex {@code 0x7f.1}, short {@code 127.1}): each is parsed here; an
 *       internal address is refused for what it is, and any form other than the canonical dotted quad
 *       is refused as ambiguous;</li>
 *   <li>IPv6 literals with a zone id, in IPv4-mapped or IPv4-compatible form, or internal (see
 *       {@link #refusalOf(InetAddress)}).</li>
 * </ul>
 *
 * <p>{@link #checkResolved(Target, List)} then checks every address a name resolved to: a single
 * internal one refuses the URL, so a name with one public and one private address is refused.
 */
public final class SsrfGuard {

    /** The longest URL accepted, in characters. */
    public static final int MAX_URL_LENGTH = 2048;

    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*");
    private static final Pattern LABEL = Pattern.compile("[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?");
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0x[0-9a-f]*");
    private static final List<String> INTERNAL_SUFFIXES = List.of("localhost", "local", "localdomain", "internal",
            "intranet", "lan", "home", "corp", "private", "home.arpa", "arpa");

    private SsrfGuard() {
    }

    /**
     * Parses and checks a URL before any name is resolved.
     *
     * @return the accepted target; for a host name its addresses must still be checked with
     *         {@link #checkResolved(Target, List)}
     * @throws UrlRefusedException naming why the URL is refused
     */
    public static Target check(String url) {
        if (url == null || url.isEmpty()) {
            throw refused("the URL is empty");
        }
        if (url.length() > MAX_URL_LENGTH) {
            throw refused("the URL is longer than " + MAX_URL_LENGTH + " characters");
        }
        for (int i = 0; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c <= 0x20 || c == 0x7f) {
                throw refused("the URL contains whitespace or a control character (at index " + i + ")");
            }
            if (c > 0x7e) {
                throw refused("the URL contains a non-ASCII character (at index " + i
                        + "); percent-encode the path and give an internationalized host in its xn-- form");
            }
            if (c == '\\') {
                throw refused("the URL contains a backslash, which parsers read differently");
            }
        }
        int colon = url.indexOf(':');
        if (colon <= 0 || !SCHEME.matcher(url.substring(0, colon)).matches()) {
            throw refused("the URL has no scheme; use http:// or https://");
        }
        String scheme = url.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw refused("scheme '" + scheme + "' is not allowed; only http and https");
        }
        if (!url.startsWith("//", colon + 1)) {
            throw refused("the URL has no //host after the scheme");
        }
        int authorityStart = colon + 3;
        int authorityEnd = url.length();
        for (int i = authorityStart; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c == '/' || c == '?' || c == '#') {
                authorityEnd = i;
                break;
            }
        }
        String authority = url.substring(authorityStart, authorityEnd);
        String rest = url.substring(authorityEnd);
        int hash = rest.indexOf('#');
        if (hash >= 0) {
            rest = rest.substring(0, hash);
        }
        String requestTarget = rest.isEmpty() ? "/" : rest.startsWith("?") ? "/" + rest : rest;

        if (authority.indexOf('@') >= 0) {
            throw refused("the URL carries user info (credentials before '@'); the probe sends no credentials");
        }
        if (authority.isEmpty()) {
            throw refused("the URL has no host");
        }
        String hostPart;
        String portPart = null;
        boolean bracketed = authority.startsWith("[");
        if (bracketed) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw refused("the IPv6 literal has no closing ']'");
            }
            hostPart = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw refused("unexpected characters after the IPv6 literal");
                }
                portPart = after.substring(1);
            }
        } else {
            int first = authority.indexOf(':');
            if (first >= 0 && authority.indexOf(':', first + 1) >= 0) {
                throw refused("the host has several ':'; an IPv6 literal must be in brackets");
            }
            hostPart = first < 0 ? authority : authority.substring(0, first);
            portPart = first < 0 ? null : authority.substring(first + 1);
        }
        int port = parsePort(portPart, scheme);

        if (hostPart.indexOf('%') >= 0) {
            throw refused(bracketed ? "IPv6 zone ids ('%') are not allowed"
                    : "the host is percent-encoded; give it in plain ASCII");
        }
        if (hostPart.isEmpty()) {
            throw refused("the URL has no host");
        }
        if (bracketed) {
            byte[] bytes = Ipv6Literals.parseIpv6(hostPart);
            InetAddress address = address(bytes);
            AddressRules.refusalOfBytes(bytes).ifPresent(reason -> {
                throw refused("the host is " + reason);
            });
            if (AddressRules.isMapped(bytes) || AddressRules.isCompatible(bytes)) {
                throw refused("IPv4-mapped and IPv4-compatible IPv6 literals are ambiguous; give the IPv4 address itself");
            }
            return new Target(scheme, address.getHostAddress(), port, requestTarget, address);
        }
        return checkHost(hostPart.toLowerCase(Locale.ROOT), scheme, port, requestTarget);
    }

    /**
     * Checks the addresses a target's host name resolved to: every one must be public.
     *
     * @return the address to connect to (the first one)
     * @throws UrlRefusedException if there is none or any of them is internal
     */
    public static InetAddress checkResolved(Target target, List<InetAddress> addresses) {
        return checkResolved(target, addresses, a -> false);
    }

    /** As {@link #checkResolved(Target, List)}, letting the test-only allowance pass matching addresses. */
    static InetAddress checkResolved(Target target, List<InetAddress> addresses, Predicate<InetAddress> allowed) {
        if (addresses == null || addresses.isEmpty()) {
            throw refused("'" + target.host() + "' resolved to no address");
        }
        for (InetAddress address : addresses) {
            if (address == null) {
                throw refused("'" + target.host() + "' resolved to a null address");
            }
            Optional<String> reason = refusalOf(address);
            if (reason.isPresent() && !allowed.test(address)) {
                throw refused("'" + target.host() + "' resolves to " + reason.get()
                        + (addresses.size() > 1 ? " (one of its " + addresses.size() + " addresses)" : ""));
            }
        }
        return addresses.get(0);
    }

    /**
     * Why an address must not be reached, or empty if it is a public unicast address. Refused: IPv4
     * 0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16 (link-local, cloud metadata), 172.16/12,
     * 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24,
     * 224/4 (multicast), 240/4 and 255.255.255.255; IPv6 {@code ::}, {@code ::1}, {@code 100::/64},
     * {@code 2001::/23} (Teredo and other protocol assignments), {@code 2001:db8::/32},
     * {@code 3fff::/20}, {@code fc00::/7}, {@code fe80::/10}, {@code fec0::/10}, {@code ff00::/8},
     * {@code 64:ff9b:1::/48}, anything outside {@code 2000::/3}, and IPv4-mapped, IPv4-compatible,
     * NAT64 ({@code 64:ff9b::/96}) and 6to4 ({@code 2002::/16}) addresses whose embedded IPv4 address
     * is refused (IPv4-compatible ones always).
     */
    public static Optional<String> refusalOf(InetAddress address) {
        return AddressRules.refusalOfBytes(address.getAddress());
    }

    // ---------------------------------------------------------------- host names and IPv4 literals

    private static Target checkHost(String host, String scheme, int port, String requestTarget) {
        String name = host;
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        if (name.isEmpty() || name.startsWith(".") || name.contains("..") || name.endsWith(".")) {
            throw refused("the host '" + host + "' has an empty label");
        }
        if (name.length() > 253) {
            throw refused("the host name is longer than 253 characters");
        }
        String[] labels = name.split("\\.", -1);
        if (NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()) {
            byte[] v4 = parseIpv4(labels, host);
            InetAddress address = address(v4);
            AddressRules.refusalOfBytes(v4).ifPresent(reason -> {
                throw refused("the host '" + host + "' is " + reason);
            });
            String canonical = address.getHostAddress();
            if (!canonical.equals(host)) {
                throw refused("the host '" + host + "' is a non-canonical IPv4 literal (" + canonical
                        + "); write it as a plain dotted quad");
            }
            return new Target(scheme, canonical, port, requestTarget, address);
        }
        for (String label : labels) {
            if (!LABEL.matcher(label).matches()) {
                throw refused("the host '" + host + "' is not a valid host name (label '" + label + "')");
            }
        }
        for (String suffix : INTERNAL_SUFFIXES) {
            if (name.equals(suffix) || name.endsWith("." + suffix)) {
                throw refused("the host '" + host + "' is an internal name (." + suffix + ")");
            }
        }
        if (labels.length == 1) {
            throw refused("the host '" + host + "' is a single-label name, which resolves only on internal networks");
        }
        return new Target(scheme, name, port, requestTarget, null);
    }

    private static byte[] parseIpv4(String[] labels, String host) {
        if (labels.length > 4) {
            throw refused("the host '" + host + "' ends in a number but is not an IPv4 address (more than 4 parts)");
        }
        long[] parts = new long[labels.length];
        for (int i = 0; i < labels.length; i++) {
            String label = labels[i];
            if (!NUMERIC_LABEL.matcher(label).matches()) {
                throw refused("the host '" + host + "' ends in a number but is not an IPv4 address");
            }
            int radix = 10;
            String digits = label;
            if (label.startsWith("0x")) {
                radix = 16;
                digits = label.substring(2);
            } else if (label.length() > 1 && label.startsWith("0")) {
                radix = 8;
                digits = label.substring(1);
            }
            digits = stripLeadingZeros(digits);
            if (digits.isEmpty() && radix == 16 && label.length() == 2) {
                throw refused("the host '" + host + "' has an empty hexadecimal part ('0x')");
            }
            if (digits.length() > 12) {
                throw refused("the host '" + host + "' has an IPv4 part that overflows");
            }
            try {
                parts[i] = digits.isEmpty() ? 0 : Long.parseLong(digits, radix);
            } catch (NumberFormatException e) {
                throw refused("the host '" + host + "' has an invalid " + (radix == 8 ? "octal" : "numeric")
                        + " IPv4 part '" + label + "'");
            }
        }
        long value = 0;
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i] > 255) {
                throw refused("the host '" + host + "' has an IPv4 part above 255");
            }
            value = (value << 8) | parts[i];
        }
        int remaining = 5 - parts.length;
        long last = parts[parts.length - 1];
        if (last >= (1L << (8 * remaining))) {
            throw refused("the host '" + host + "' has an IPv4 value that overflows");
        }
        value = (value << (8 * remaining)) | last;
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }

    private static int parsePort(String port, String scheme) {
        if (port == null) {
            return scheme.equals("https") ? 443 : 80;
        }
        if (port.isEmpty()) {
            throw refused("the port after ':' is empty");
        }
        if (port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9') || port.startsWith("0")) {
            throw refused("the port '" + port + "' is not a number from 1 to 65535 without leading zeros");
        }
        int value = Integer.parseInt(port);
        if (value < 1 || value > 65535) {
            throw refused("the port " + value + " is outside 1-65535");
        }
        return value;
    }

    /** The address of these bytes; an invalid length is refused. */
    static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw refused("an address of invalid length");
        }
    }

    static UrlRefusedException refused(String reason) {
        return new UrlRefusedException(reason);
    }
}
