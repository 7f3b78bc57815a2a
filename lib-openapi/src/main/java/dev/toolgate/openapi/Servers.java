package dev.toolgate.openapi;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/** Server URLs: one normal form, and the check that a request URL stays under its server. */
final class Servers {

    private Servers() {
    }

    /**
     * The normal form of a server URL: http or https, lower-case scheme and host, no default port, no
     * trailing slash, no query, fragment or credentials.
     *
     * @throws IllegalArgumentException if the URL is not such a server URL
     */
    static URI normalize(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null || url.getHost().isEmpty()) {
            throw new IllegalArgumentException("a server must be an http or https URL with a host, got " + url);
        }
        if (url.getRawUserInfo() != null) {
            throw new IllegalArgumentException("a server URL must not carry credentials: put them in a secret");
        }
        if (url.getRawQuery() != null || url.getRawFragment() != null) {
            throw new IllegalArgumentException("a server URL has no query or fragment, got " + url);
        }
        int port = url.getPort();
        if (scheme.equals("http") && port == 80 || scheme.equals("https") && port == 443) {
            port = -1;
        }
        String path = url.normalize().getRawPath();
        if (path == null) {
            path = "";
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.contains("/../") || path.endsWith("/..") || path.equals("..")) {
            throw new IllegalArgumentException("a server URL must not climb with '..', got " + url);
        }
        try {
            String authority = url.getHost().toLowerCase(Locale.ROOT) + (port == -1 ? "" : ":" + port);
            return new URI(scheme + "://" + authority + path);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a server URL: " + url, e);
        }
    }

    /**
     * Checks that {@code request} goes to {@code server}'s scheme, host and port, under its path, with no
     * dot segment on the way.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static void checkUnder(URI server, URI request) {
        if (!server.getScheme().equalsIgnoreCase(request.getScheme())
                || request.getHost() == null || !server.getHost().equalsIgnoreCase(request.getHost())
                || effectivePort(server) != effectivePort(request) || request.getRawUserInfo() != null) {
            throw new IllegalArgumentException("leaves the server " + server);
        }
        String path = request.getRawPath();
        if (!path.equals(request.normalize().getRawPath())) {
            throw new IllegalArgumentException("has a dot segment");
        }
        String base = server.getRawPath();
        if (!path.startsWith(base + "/") && !path.equals(base)) {
            throw new IllegalArgumentException("leaves the server's path " + (base.isEmpty() ? "/" : base));
        }
    }

    /** True if both URLs have the same scheme, host and port. */
    static boolean sameOrigin(URI a, URI b) {
        return a.getScheme() != null && b.getScheme() != null && a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost() != null && b.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost())
                && effectivePort(a) == effectivePort(b);
    }

    private static int effectivePort(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
}
