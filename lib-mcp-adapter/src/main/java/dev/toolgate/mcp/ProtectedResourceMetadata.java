package dev.toolgate.mcp;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The OAuth 2.0 Protected Resource Metadata (RFC 9728) of a Streamable HTTP MCP server: which
 * authorization servers issue its tokens and which scopes it knows. Given to
 * {@link McpHttpBuilder#protectedResourceMetadata(ProtectedResourceMetadata)}, the
 * server then
 * <ul>
 *   <li>serves this document, without authentication and to GET only, at
 *       {@code /.well-known/oauth-protected-resource} and at the path-suffixed form RFC 9728 section
 *       3.1 derives from the resource identifier ({@code /.well-known/oauth-protected-resource/mcp}
 *       for {@code https://mcp.example.com/mcp}) and from the endpoint path;</li>
 *   <li>names it in every 401: {@code WWW-Authenticate: Bearer realm="toolgate",
 *       resource_metadata="<metadataUrl()>"}, plus {@code scope="<scopes supported>"} when scopes are
 *       configured, plus {@code error="invalid_token"} when a token was given but refused.</li>
 * </ul>
 *
 * <pre>{@code
 * ProtectedResourceMetadata metadata = ProtectedResourceMetadata.builder(URI.create("https://mcp.example.com/mcp"))
 *         .authorizationServers(URI.create("https://login.example.com"))
 *         .scopesSupported("tools.read", "tools.write")
 *         .resourceName("Example tools")
 *         .build();
 * }</pre>
 *
 * Toolgate does not check tokens against these servers: the host's {@link McpAuthenticator} does.
 */
public final class ProtectedResourceMetadata {

    /** The well-known path prefix of RFC 9728. */
    public static final String WELL_KNOWN_PATH = "/.well-known/oauth-protected-resource";

    /** RFC 6749 section 3.3 {@code scope-token}: printable ASCII without space, {@code "} and {@code \}. */
    private static final Pattern SCOPE = Pattern.compile("[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,200}");

    private final URI resource;
    private final List<URI> authorizationServers;
    private final List<String> scopesSupported;
    private final String resourceName;
    private final URI resourceDocumentation;

    private ProtectedResourceMetadata(Builder builder) {
        this.resource = builder.resource;
        this.authorizationServers = List.copyOf(builder.authorizationServers);
        this.scopesSupported = List.copyOf(builder.scopesSupported);
        this.resourceName = builder.resourceName;
        this.resourceDocumentation = builder.resourceDocumentation;
    }

    /**
     * Starts the metadata of the resource {@code resource}: the MCP endpoint's public URL, as clients
     * reach it (through any proxy), {@code http} or {@code https} (https outside development), with a
     * host and without a fragment.
     *
     * @throws IllegalArgumentException if {@code resource} is not such a URL
     */
    public static Builder builder(URI resource) {
        return new Builder(checkUrl(resource, "resource"));
    }

    /** The resource identifier. */
    public URI resource() {
        return resource;
    }

    /** The authorization servers, in the order given. */
    public List<URI> authorizationServers() {
        return authorizationServers;
    }

    /** The scopes the resource knows, in the order given. */
    public List<String> scopesSupported() {
        return scopesSupported;
    }

    /** The human-readable name, if any. */
    public Optional<String> resourceName() {
        return Optional.ofNullable(resourceName);
    }

    /**
     * Where this document is served for the resource identifier (RFC 9728 section 3.1): the well-known
     * path inserted between the host and the resource's path, such as
     * {@code https://mcp.example.com/.well-known/oauth-protected-resource/mcp}. This URL goes into
     * {@code resource_metadata} of {@code WWW-Authenticate}.
     */
    public URI metadataUrl() {
        return URI.create(resource.getScheme() + "://" + resource.getRawAuthority() + WELL_KNOWN_PATH + resourcePath());
    }

    /** The resource's path without a trailing slash; empty for the root. */
    String resourcePath() {
        String path = resource.getRawPath();
        if (path == null) {
            return "";
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return path;
    }

    /** The JSON document, with RFC 9728's member names. */
    Map<String, Object> document() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("resource", resource.toString());
        if (!authorizationServers.isEmpty()) {
            json.put("authorization_servers", authorizationServers.stream().map(URI::toString).toList());
        }
        if (!scopesSupported.isEmpty()) {
            json.put("scopes_supported", scopesSupported);
        }
        json.put("bearer_methods_supported", List.of("header"));
        if (resourceName != null) {
            json.put("resource_name", resourceName);
        }
        if (resourceDocumentation != null) {
            json.put("resource_documentation", resourceDocumentation.toString());
        }
        return json;
    }

    /** The {@code WWW-Authenticate} value of a 401; {@code error} is null when no token was given. */
    String challenge(String error, String description) {
        StringBuilder value = new StringBuilder("Bearer realm=\"toolgate\", resource_metadata=\"").append(metadataUrl()).append('"');
        if (!scopesSupported.isEmpty()) {
            value.append(", scope=\"").append(String.join(" ", scopesSupported)).append('"');
        }
        if (error != null) {
            value.append(", error=\"").append(error).append("\", error_description=\"").append(description).append('"');
        }
        return value.toString();
    }

    private static URI checkUrl(URI url, String what) {
        Objects.requireNonNull(url, what);
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!url.isAbsolute() || !(scheme.equals("https") || scheme.equals("http")) || url.getHost() == null
                || url.getRawFragment() != null || url.toString().indexOf('"') >= 0) {
            throw new IllegalArgumentException(what + " must be an absolute http(s) URL with a host and no fragment, got '"
                    + url + "'");
        }
        return url;
    }

    /** Builds {@link ProtectedResourceMetadata}. */
    public static final class Builder {

        private final URI resource;
        private final List<URI> authorizationServers = new ArrayList<>();
        private final List<String> scopesSupported = new ArrayList<>();
        private String resourceName;
        private URI resourceDocumentation;

        private Builder(URI resource) {
            this.resource = resource;
        }

        /** The authorization servers whose tokens the resource accepts (issuer URLs; MCP clients need at least one). */
        public Builder authorizationServers(URI... servers) {
            for (URI server : servers) {
                authorizationServers.add(checkUrl(server, "authorization server"));
            }
            return this;
        }

        /**
         * The scopes the resource knows ({@code scopes_supported}), also sent as {@code scope} in every
         * 401. Each is an RFC 6749 scope token: printable ASCII without space, {@code "} and {@code \}.
         */
        public Builder scopesSupported(String... scopes) {
            for (String scope : scopes) {
                if (scope == null || !SCOPE.matcher(scope).matches()) {
                    throw new IllegalArgumentException("scope must be 1-200 printable ASCII characters without space, "
                            + "'\"' and '\\', got '" + scope + "'");
                }
                scopesSupported.add(scope);
            }
            return this;
        }

        /** A human-readable name ({@code resource_name}). */
        public Builder resourceName(String name) {
            this.resourceName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** A page for developers ({@code resource_documentation}). */
        public Builder resourceDocumentation(URI documentation) {
            this.resourceDocumentation = checkUrl(documentation, "resource documentation");
            return this;
        }

        public ProtectedResourceMetadata build() {
            return new ProtectedResourceMetadata(this);
        }
    }
}
