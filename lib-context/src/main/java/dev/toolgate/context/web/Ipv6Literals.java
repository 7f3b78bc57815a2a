package dev.toolgate.context.web;

import java.util.List;
import java.util.Locale;

/** Reads the IPv6 literals of URLs for {@link SsrfGuard}: groups, one {@code ::}, a trailing dotted quad. */
final class Ipv6Literals {

    private Ipv6Literals() {
    }

    /** The 16 bytes of an IPv6 literal (without brackets), or {@link UrlRefusedException}. */
    static byte[] parseIpv6(String text) {
        String s = text.toLowerCase(Locale.ROOT);
        if (!s.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.')) {
            throw SsrfGuard.refused("'" + text + "' is not an IPv6 address");
        }
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            throw SsrfGuard.refused("'" + text + "' has more than one '::'");
        }
        String head = gap < 0 ? s : s.substring(0, gap);
        String tail = gap < 0 ? "" : s.substring(gap + 2);
        List<Integer> headGroups = groups(head, text, gap < 0);
        List<Integer> tailGroups = groups(tail, text, true);
        int total = headGroups.size() + tailGroups.size();
        if (gap < 0 ? total != 8 : total > 7) {
            throw SsrfGuard.refused("'" + text + "' does not have 8 groups");
        }
        byte[] bytes = new byte[16];
        int i = 0;
        for (int g : headGroups) {
            bytes[i++] = (byte) (g >>> 8);
            bytes[i++] = (byte) g;
        }
        i = 16 - 2 * tailGroups.size();
        for (int g : tailGroups) {
            bytes[i++] = (byte) (g >>> 8);
            bytes[i++] = (byte) g;
        }
        return bytes;
    }

    /** The 16-bit groups of one side of '::'; the last may be a dotted quad when {@code mayEndInIpv4}. */
    private static List<Integer> groups(String side, String text, boolean mayEndInIpv4) {
        java.util.ArrayList<Integer> out = new java.util.ArrayList<>();
        if (side.isEmpty()) {
            return out;
        }
        String[] parts = side.split(":", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.contains(".")) {
                if (i != parts.length - 1 || !mayEndInIpv4) {
                    throw SsrfGuard.refused("'" + text + "' has an embedded IPv4 address in the wrong place");
                }
                String[] quad = part.split("\\.", -1);
                if (quad.length != 4) {
                    throw SsrfGuard.refused("'" + text + "' has a malformed embedded IPv4 address");
                }
                int[] b = new int[4];
                for (int q = 0; q < 4; q++) {
                    if (!quad[q].matches("0|[1-9][0-9]{0,2}") || Integer.parseInt(quad[q]) > 255) {
                        throw SsrfGuard.refused("'" + text + "' has a malformed embedded IPv4 address");
                    }
                    b[q] = Integer.parseInt(quad[q]);
                }
                out.add((b[0] << 8) | b[1]);
                out.add((b[2] << 8) | b[3]);
            } else {
                if (part.isEmpty() || part.length() > 4) {
                    throw SsrfGuard.refused("'" + text + "' has a malformed group '" + part + "'");
                }
                out.add(Integer.parseInt(part, 16));
            }
        }
        return out;
    }
}
