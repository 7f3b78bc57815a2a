package dev.toolgate.context.web;

import java.util.Optional;

/**
 * Which addresses {@link SsrfGuard} refuses: the special-purpose IPv4 and IPv6 ranges, and IPv6
 * addresses that embed a refused IPv4 address.
 */
final class AddressRules {

    private AddressRules() {
    }

    /** Why the address of these bytes must not be reached (see {@link SsrfGuard#refusalOf}), or empty. */
    static Optional<String> refusalOfBytes(byte[] a) {
        if (a.length == 4) {
            return ipv4Refusal(a).map(reason -> reason + " " + v4(a, 0));
        }
        if (a.length != 16) {
            return Optional.of("an address of unknown length");
        }
        String text = SsrfGuard.address(a).getHostAddress();
        if (isZero(a, 0, 16)) {
            return Optional.of("the unspecified IPv6 address ::");
        }
        if (isZero(a, 0, 15) && a[15] == 1) {
            return Optional.of("the IPv6 loopback address ::1");
        }
        if (isMapped(a)) {
            return embedded(a, 12, "an IPv4-mapped IPv6 address of");
        }
        if (isCompatible(a)) {
            return Optional.of("an IPv4-compatible IPv6 address (deprecated) " + text);
        }
        int b0 = a[0] & 0xff;
        int b1 = a[1] & 0xff;
        if (b0 == 0x00 && b1 == 0x64 && (a[2] & 0xff) == 0xff && (a[3] & 0xff) == 0x9b) {
            if (isZero(a, 4, 12)) {
                return embedded(a, 12, "a NAT64 address (64:ff9b::/96) of");
            }
            if (isZero(a, 4, 5) && a[5] == 1) {
                return Optional.of("a local-use NAT64 address (64:ff9b:1::/48) " + text);
            }
        }
        if (b0 == 0x01 && b1 == 0x00 && isZero(a, 2, 8)) {
            return Optional.of("a discard-only IPv6 address (100::/64) " + text);
        }
        if (b0 == 0xff) {
            return Optional.of("an IPv6 multicast address (ff00::/8) " + text);
        }
        if ((b0 & 0xfe) == 0xfc) {
            return Optional.of("an IPv6 unique-local address (fc00::/7) " + text);
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
            return Optional.of("an IPv6 link-local address (fe80::/10) " + text);
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
            return Optional.of("an IPv6 site-local address (fec0::/10) " + text);
        }
        if ((b0 & 0xe0) != 0x20) {
            return Optional.of("an IPv6 address outside global unicast (2000::/3) " + text);
        }
        if (b0 == 0x20 && b1 == 0x01) {
            int b2 = a[2] & 0xff;
            int b3 = a[3] & 0xff;
            if (b2 == 0 && b3 == 0) {
                return Optional.of("a Teredo address (2001::/32) " + text);
            }
            if (b2 <= 0x01) {
                return Optional.of("an IETF protocol-assignment IPv6 address (2001::/23) " + text);
            }
            if (b2 == 0x0d && b3 == 0xb8) {
                return Optional.of("an IPv6 documentation address (2001:db8::/32) " + text);
            }
        }
        if (b0 == 0x20 && b1 == 0x02) {
            return embedded(a, 2, "a 6to4 address (2002::/16) of");
        }
        if (b0 == 0x3f && (b1 & 0xf0) == 0xf0) {
            return Optional.of("an IPv6 documentation address (3fff::/20) " + text);
        }
        return Optional.empty();
    }

    private static Optional<String> embedded(byte[] a, int offset, String what) {
        byte[] v4 = new byte[] {a[offset], a[offset + 1], a[offset + 2], a[offset + 3]};
        return ipv4Refusal(v4).map(reason -> what + " " + reason + " " + v4(v4, 0));
    }

    private static Optional<String> ipv4Refusal(byte[] a) {
        int b0 = a[0] & 0xff;
        int b1 = a[1] & 0xff;
        int b2 = a[2] & 0xff;
        if (b0 == 0) {
            return Optional.of(isZero(a, 0, 4) ? "the unspecified address" : "a 'this network' address (0/8)");
        }
        if (b0 == 10) {
            return Optional.of("a private address (10/8)");
        }
        if (b0 == 100 && (b1 & 0xc0) == 64) {
            return Optional.of("a carrier-grade NAT address (100.64/10)");
        }
        if (b0 == 127) {
            return Optional.of("a loopback address (127/8)");
        }
        if (b0 == 169 && b1 == 254) {
            return Optional.of("a link-local address (169.254/16, includes cloud metadata)");
        }
        if (b0 == 172 && (b1 & 0xf0) == 16) {
            return Optional.of("a private address (172.16/12)");
        }
        if (b0 == 192 && b1 == 0 && b2 == 0) {
            return Optional.of("an IETF protocol-assignment address (192.0.0/24)");
        }
        if (b0 == 192 && b1 == 0 && b2 == 2) {
            return Optional.of("a documentation address (192.0.2/24)");
        }
        if (b0 == 192 && b1 == 88 && b2 == 99) {
            return Optional.of("a 6to4 relay anycast address (192.88.99/24)");
        }
        if (b0 == 192 && b1 == 168) {
            return Optional.of("a private address (192.168/16)");
        }
        if (b0 == 198 && (b1 & 0xfe) == 18) {
            return Optional.of("a benchmarking address (198.18/15)");
        }
        if (b0 == 198 && b1 == 51 && b2 == 100) {
            return Optional.of("a documentation address (198.51.100/24)");
        }
        if (b0 == 203 && b1 == 0 && b2 == 113) {
            return Optional.of("a documentation address (203.0.113/24)");
        }
        if ((b0 & 0xf0) == 224) {
            return Optional.of("a multicast address (224/4)");
        }
        if (b0 == 255 && b1 == 255 && b2 == 255 && (a[3] & 0xff) == 255) {
            return Optional.of("the broadcast address");
        }
        if ((b0 & 0xf0) == 240) {
            return Optional.of("a reserved address (240/4)");
        }
        return Optional.empty();
    }

    static boolean isMapped(byte[] a) {
        return a.length == 16 && isZero(a, 0, 10) && (a[10] & 0xff) == 0xff && (a[11] & 0xff) == 0xff;
    }

    /** {@code ::a.b.c.d}, other than {@code ::} and {@code ::1}. */
    static boolean isCompatible(byte[] a) {
        return a.length == 16 && isZero(a, 0, 12) && !(isZero(a, 12, 15) && ((a[15] & 0xff) <= 1));
    }

    private static boolean isZero(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static String v4(byte[] a, int offset) {
        return (a[offset] & 0xff) + "." + (a[offset + 1] & 0xff) + "." + (a[offset + 2] & 0xff) + "." + (a[offset + 3] & 0xff);
    }
}
