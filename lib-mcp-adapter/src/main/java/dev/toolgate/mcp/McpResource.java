package dev.toolgate.mcp;

import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A resource with a fixed URI, served over MCP to the principals the gate's resolver allows: listed
 * in {@code resources/list}, read with {@code resources/read}, subscribable. A principal the resolver
 * refuses sees exactly what it would see if the resource did not exist.
 *
 * <pre>{@code
 * McpResource.builder("test://static-text", "static-text")
 *         .description("A static text resource").mimeType("text/plain")
 *         .requires("docs.read")
 *         .reader(request -> List.of(McpContents.text(request.uri(), "text/plain", "This is ...")))
 *         .build();
 * }</pre>
 *
 * @see McpCatalog
 */
public final class McpResource implements Guarded {

    /** The longest URI (or URI template) accepted, in characters. */
    public static final int MAX_URI_LENGTH = 4096;

    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*", Pattern.DOTALL);

    /** Produces a resource's contents; runs on a server thread with the principal of the request. */
    @FunctionalInterface
    public interface Reader {

        /**
         * The contents of {@code request.uri()}. An empty list (or null) makes the URI unknown: the
         * client gets the same "Resource not found" error as for any unknown URI. An exception becomes
         * a JSON-RPC internal error (-32603) without its message; it is logged.
         */
        List<McpContents> read(Request request) throws Exception;
    }

    /**
     * A read of a resource.
     *
     * @param principal the principal of the request (already allowed by the resolver)
     * @param uri       the URI the client asked for, exactly as sent
     * @param variables for a {@link McpResourceTemplate}, each variable's value, percent-decoded: untrusted
     *                  data (it may hold {@code /}, {@code ..}, any Unicode), never a path to join unchecked;
     *                  empty for a fixed resource
     */
    public record Request(Principal principal, String uri, Map<String, String> variables) {

        public Request {
            variables = Map.copyOf(variables);
        }
    }

    private final String uri;
    private final String name;
    private final String title;
    private final String description;
    private final String mimeType;
    private final Set<String> requiredAccessRules;
    private final Reader reader;

    private McpResource(Builder builder) {
        this.uri = builder.uri;
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.mimeType = builder.mimeType;
        this.requiredAccessRules = Set.copyOf(builder.rules);
        this.reader = Objects.requireNonNull(builder.reader, "reader: a resource needs a reader");
    }

    /** A builder for the resource at {@code uri} (an absolute URI, such as {@code test://static-text}) named {@code name}. */
    public static Builder builder(String uri, String name) {
        return new Builder(uri, name);
    }

    public String uri() {
        return uri;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<String> requiredAccessRules() {
        return requiredAccessRules;
    }

    String title() {
        return title;
    }

    String description() {
        return description;
    }

    String mimeType() {
        return mimeType;
    }

    Reader reader() {
        return reader;
    }

    /** Builds an {@link McpResource}. */
    public static final class Builder {

        private final String uri;
        private final String name;
        private String title;
        private String description;
        private String mimeType;
        private final Set<String> rules = new LinkedHashSet<>();
        private Reader reader;

        private Builder(String uri, String name) {
            this.uri = checkUri(uri, "uri");
            this.name = checkText(name, "name");
        }

        /** A human-readable title. */
        public Builder title(String title) {
            this.title = title;
            return this;
        }

        /** What the resource holds, for the model. */
        public Builder description(String description) {
            this.description = description;
            return this;
        }

        /** The MIME type listed for the resource (the contents carry their own). */
        public Builder mimeType(String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        /** Access rules a principal must all hold (as for tools, decided by the gate's resolver). */
        public Builder requires(String... rules) {
            this.rules.addAll(checkRules(rules));
            return this;
        }

        /** The function producing the contents. */
        public Builder reader(Reader reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
            return this;
        }

        public McpResource build() {
            return new McpResource(this);
        }
    }

    // ------------------------------------------------------------------------------------ checks shared by the catalog's types

    static String checkUri(String uri, String what) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        if (uri.length() > MAX_URI_LENGTH) {
            throw new IllegalArgumentException(what + " is longer than " + MAX_URI_LENGTH + " characters");
        }
        if (!SCHEME.matcher(uri).matches() || !uri.strip().equals(uri)) {
            throw new IllegalArgumentException(what + " must be an absolute URI with a scheme, such as test://x, got '" + uri + "'");
        }
        return uri;
    }

    static String checkText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
        if (value.length() > 256) {
            throw new IllegalArgumentException(what + " is longer than 256 characters");
        }
        return value;
    }

    static List<String> checkRules(String... rules) {
        List<String> list = Arrays.asList(Objects.requireNonNull(rules, "rules"));
        for (String rule : list) {
            if (rule == null || rule.isBlank()) {
                throw new IllegalArgumentException("an access rule must not be blank");
            }
        }
        return list;
    }
}
