package dev.toolgate.openapi;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.json.Json;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceTool;
import dev.toolgate.source.SourceToolException;
import dev.toolgate.source.ToolSource;
import dev.toolgate.tool.Effect;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * An HTTP API described by an OpenAPI 3.0, 3.1 or 3.2 document as a tool source: each operation becomes
 * a governed tool named {@code openapi:<name>.<operationId>}, validated locally against an input
 * schema assembled from the operation's path, query and header parameters and its JSON body, and
 * called over HTTP only after the gate let it through.
 *
 * <pre>{@code
 * ToolSource billing = OpenApiSource.builder("billing")
 *         .documentUrl(URI.create("https://billing.internal/openapi.json"))
 *         .server(URI.create("https://billing.internal/api/v2"))   // the only base URL requests go to
 *         .bearerSecret("billing-token")                            // from the host's SecretResolver
 *         .requires("billing.use")
 *         .build();
 * Toolgate gate = Toolgate.builder().source(billing).secrets(vault).build();
 * }</pre>
 *
 * <p><b>Input.</b> A tool's arguments are an object with up to four members: {@code path},
 * {@code query} and {@code header} (each an object of that location's parameters) and {@code body}
 * (the JSON request body). Everything is validated against the schema before anything is sent.
 * Component schemas become {@code $defs} of the input schema, so recursive schemas stay references.
 * Cookie parameters and non-JSON bodies are not sent: an operation that requires one is left out.
 *
 * <p><b>Effect</b> comes from the method, never from a name: GET, HEAD and OPTIONS are READ; POST, PUT,
 * PATCH and TRACE are MUTATE; DELETE is DESTRUCTIVE. An operation's {@code x-toolgate-effect}
 * ({@code read}, {@code mutate} or {@code destructive}) may make it stricter; it makes it laxer only
 * when the host opted in with {@link Builder#trustDocumentEffects()}. The host's
 * {@link Builder#effect(String, Effect)} always wins. MUTATE and DESTRUCTIVE calls are proposed with
 * the method, the resolved URL and the body, and the call sends exactly the stored payload.
 *
 * <p><b>Where requests go.</b> Only to the servers the host names with {@link Builder#server(URI)}: the
 * document's top-level {@code servers} are ignored, and an operation whose own {@code servers} name no
 * allowed server is left out. Values are percent-encoded, so a value cannot add a path segment, a
 * query parameter or a header; a path value of {@code ..}, or with a slash or a control character, is
 * refused before anything is sent. Redirects of a read are followed only on the same scheme, host and
 * port; a write's redirect is returned, not followed.
 *
 * <p><b>Credentials</b> come from the host's {@link dev.toolgate.source.SecretResolver} by name
 * ({@link Builder#bearerSecret}, {@link Builder#basicSecrets}, {@link Builder#apiKeyHeader},
 * {@link Builder#apiKeyQuery}), resolved per request, never from the model: parameters named like a
 * credential, and headers such as {@code Authorization}, {@code Host} or {@code Cookie}, are not
 * offered to the model, and an exploded object's keys cannot name a credential's query parameter.
 * The API sees the source's credentials, not the calling user's.
 *
 * <p><b>Drift.</b> The document is read again at each listing (by default every five minutes). Each
 * tool's fingerprint covers its input schema, method, path and effect (and the server, where the
 * operation's own {@code servers} chose it), so a changed operation turns a tenant's ALLOW into
 * REQUIRE_APPROVAL until an operator re-confirms it, and a proposal made before the change is stale at
 * apply. The host's base URL is configuration and not part of it.
 *
 * <p><b>Results</b> are {@code {"status": 200, "body": ...}}: the JSON body parsed, a text body as a
 * string, a binary body described, all capped at {@link Builder#maxResponseBytes(int)}. An HTTP error
 * status fails the call with the status and the start of the body. Thread-safe.
 */
public final class OpenApiSource implements ToolSource {

    private static final Logger LOG = LoggerFactory.getLogger(OpenApiSource.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");

    private final String id;
    private final String displayName;
    private final DocumentLocation document;
    private final long maxDocumentBytes;
    private final Set<String> requiredRules;
    private final Map<String, Set<String>> operationRules;
    private final boolean openWorld;
    private final OperationReader.Settings settings;
    private final HttpExchange http;
    private volatile Map<String, Operation> operations = Map.of();

    private OpenApiSource(Builder builder) {
        this.id = "openapi:" + builder.name;
        this.displayName = builder.displayName != null ? builder.displayName : id;
        this.document = builder.document;
        this.maxDocumentBytes = builder.maxDocumentBytes;
        this.requiredRules = Set.copyOf(builder.rules);
        Map<String, Set<String>> perOperation = new LinkedHashMap<>();
        builder.operationRules.forEach((name, rules) -> perOperation.put(name, Set.copyOf(rules)));
        this.operationRules = Map.copyOf(perOperation);
        this.openWorld = builder.openWorld;
        Set<String> headers = new TreeSet<>();
        Set<String> query = new TreeSet<>();
        for (Credential credential : builder.credentials) {
            if (credential.header() != null) {
                headers.add(credential.header());
            }
            if (credential.queryParameter() != null) {
                query.add(credential.queryParameter());
            }
        }
        this.settings = new OperationReader.Settings(List.copyOf(builder.servers), headers, query,
                Map.copyOf(builder.effects), builder.trustDocumentEffects, Set.copyOf(builder.only),
                Set.copyOf(builder.excluded));
        this.http = new HttpExchange(id, builder.client, List.copyOf(builder.credentials), builder.maxResponseBytes);
    }

    /**
     * Starts a source.
     *
     * @param name the source name, 1-32 characters of {@code A-Za-z0-9_-}; the id is {@code openapi:<name>}
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String displayName() {
        return displayName;
    }

    @Override
    public List<SourceTool> listTools(SourceContext context) throws Exception {
        byte[] bytes = document.read(maxDocumentBytes, context.timeout());
        ParsedDocument parsed = ParsedDocument.parse(bytes, document.describe(), maxDocumentBytes);
        OperationReader.Result result = OperationReader.read(parsed, settings);
        for (String[] skipped : result.skipped()) {
            context.skip(skipped[0], skipped[1]);
        }
        Map<String, Operation> byName = new LinkedHashMap<>();
        List<SourceTool> tools = new ArrayList<>();
        for (Operation operation : result.operations()) {
            byName.put(operation.name(), operation);
            Set<String> rules = new TreeSet<>(requiredRules);
            rules.addAll(operationRules.getOrDefault(operation.name(), Set.of()));
            tools.add(new SourceTool(operation.name(), operation.title(), operation.description(), operation.effect(),
                    operation.inputSchema(), null, rules, openWorld, operation.contract()));
        }
        warnUnknown(byName.keySet(), result);
        operations = Map.copyOf(byName);
        LOG.debug("{}: {} operation(s) of {} (OpenAPI {}) became tools, {} left out", id, tools.size(),
                parsed.location(), parsed.version(), result.skipped().size());
        return tools;
    }

    @Override
    public String describeCall(String tool, JsonNode arguments) {
        return RequestPlan.of(operation(tool), arguments, settings.credentialQuery()).describe();
    }

    @Override
    public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) throws Exception {
        RequestPlan plan = RequestPlan.of(operation(tool), arguments, settings.credentialQuery());
        return http.send(plan, context);
    }

    @Override
    public void close() {
        http.close();
    }

    private Operation operation(String tool) {
        Operation operation = operations.get(tool);
        if (operation == null) {
            throw new SourceToolException("the operation " + tool + " is not in " + id + "'s document any more");
        }
        return operation;
    }

    private void warnUnknown(Set<String> listed, OperationReader.Result result) {
        Set<String> known = new LinkedHashSet<>(listed);
        result.skipped().forEach(s -> known.add(s[0]));
        for (String named : settings.effects().keySet()) {
            if (!known.contains(named)) {
                LOG.warn("{}: the effect override names '{}', which is no operation of the document", id, named);
            }
        }
        for (String named : operationRules.keySet()) {
            if (!known.contains(named)) {
                LOG.warn("{}: the access rules name '{}', which is no operation of the document", id, named);
            }
        }
    }

    @Override
    public String toString() {
        return "OpenApiSource[" + id + ", " + document.describe() + "]";
    }

    /**
     * Configures an {@link OpenApiSource}: one document, at least one server, optionally credentials,
     * rules, effect overrides and limits. Not thread-safe; {@link #build()} checks the configuration.
     */
    public static final class Builder {

        private final String name;
        private String displayName;
        private DocumentLocation document;
        private final List<URI> servers = new ArrayList<>();
        private final List<Credential> credentials = new ArrayList<>();
        private final Set<String> rules = new LinkedHashSet<>();
        private final Map<String, Set<String>> operationRules = new LinkedHashMap<>();
        private final Map<String, Effect> effects = new LinkedHashMap<>();
        private final Set<String> only = new LinkedHashSet<>();
        private final Set<String> excluded = new LinkedHashSet<>();
        private boolean trustDocumentEffects;
        private boolean openWorld;
        private long maxDocumentBytes = 16L * 1024 * 1024;
        private int maxResponseBytes = 1024 * 1024;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private java.net.http.HttpClient client;

        private Builder(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("an OpenAPI source name is 1-32 characters of A-Za-z0-9_-, got '" + name + "'");
            }
            this.name = name;
        }

        /** A name for people, such as {@code Billing API}. */
        public Builder displayName(String displayName) {
            this.displayName = displayName;
            return this;
        }

        /** The document in a file, read again at each listing. */
        public Builder document(Path file) {
            return document(DocumentLocation.file(file));
        }

        /** The document as a classpath resource of this library's class loader or the thread's. */
        public Builder documentResource(String resource) {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return document(DocumentLocation.resource(resource, loader));
        }

        /**
         * The document at a URL the host trusts, fetched at each listing (within the gate's listing timeout,
         * without following redirects, at most {@link #maxDocumentBytes(long)}).
         */
        public Builder documentUrl(URI url) {
            return document(DocumentLocation.url(url, client()));
        }

        /** The document as text (JSON or YAML). */
        public Builder documentText(String text) {
            return document(DocumentLocation.text(text));
        }

        private Builder document(DocumentLocation location) {
            if (document != null) {
                throw new IllegalStateException("the source already has a document: " + document.describe());
            }
            this.document = location;
            return this;
        }

        /**
         * A base URL requests may go to, such as {@code https://billing.internal/api/v2}; the first is the
         * one operations use unless their own {@code servers} name another allowed one. The document's
         * top-level {@code servers} are not used.
         */
        public Builder server(URI baseUrl) {
            servers.add(Servers.normalize(Objects.requireNonNull(baseUrl, "baseUrl")));
            return this;
        }

        /** Sends {@code Authorization: Bearer <secret>}. */
        public Builder bearerSecret(String secretName) {
            return credential(new Credential.Bearer(secret(secretName)));
        }

        /** Sends HTTP basic authentication from two secrets. */
        public Builder basicSecrets(String userSecretName, String passwordSecretName) {
            return credential(new Credential.Basic(secret(userSecretName), secret(passwordSecretName)));
        }

        /** Sends an API key in a header, such as {@code X-API-Key}. */
        public Builder apiKeyHeader(String header, String secretName) {
            if (header == null || !HEADER.matcher(header).matches()) {
                throw new IllegalArgumentException("not a header name: '" + header + "'");
            }
            return credential(new Credential.Header(header, secret(secretName)));
        }

        /**
         * Sends an API key as a query parameter. Prefer a header where the API allows it: URLs end up in
         * the API's access logs.
         */
        public Builder apiKeyQuery(String parameter, String secretName) {
            if (parameter == null || parameter.isEmpty()) {
                throw new IllegalArgumentException("an API key query parameter needs a name");
            }
            return credential(new Credential.Query(parameter, secret(secretName)));
        }

        private Builder credential(Credential credential) {
            for (Credential existing : credentials) {
                if (credential.header() != null && credential.header().equals(existing.header())) {
                    throw new IllegalArgumentException("two credentials set the header " + credential.header());
                }
            }
            credentials.add(credential);
            return this;
        }

        private static String secret(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a credential names a secret of the host's SecretResolver");
            }
            return name;
        }

        /** Access rules a caller must hold for every tool of this source. */
        public Builder requires(String... accessRules) {
            rules.addAll(List.of(accessRules));
            return this;
        }

        /** Access rules a caller must hold for one operation's tool, on top of {@link #requires(String...)}. */
        public Builder requiresFor(String operation, String... accessRules) {
            operationRules.computeIfAbsent(Objects.requireNonNull(operation, "operation"), o -> new LinkedHashSet<>())
                    .addAll(List.of(accessRules));
            return this;
        }

        /** The host's effect for one operation (by tool name), whatever the method or the document say. */
        public Builder effect(String operation, Effect effect) {
            effects.put(Objects.requireNonNull(operation, "operation"), Objects.requireNonNull(effect, "effect"));
            return this;
        }

        /**
         * Lets the document's {@code x-toolgate-effect} make an operation laxer than its method (a POST
         * that only searches, marked {@code read}). Without it the extension only makes operations stricter.
         */
        public Builder trustDocumentEffects() {
            this.trustDocumentEffects = true;
            return this;
        }

        /** Offers only these operations (by tool name). */
        public Builder only(String... operations) {
            only.addAll(List.of(operations));
            return this;
        }

        /** Leaves these operations (by tool name) out. */
        public Builder exclude(String... operations) {
            excluded.addAll(List.of(operations));
            return this;
        }

        /** Marks the tools as reaching outside the host (MCP {@code openWorldHint}); false by default. */
        public Builder openWorld(boolean openWorld) {
            this.openWorld = openWorld;
            return this;
        }

        /** The largest document read, in bytes; 16 MiB by default. */
        public Builder maxDocumentBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxDocumentBytes must be positive");
            }
            this.maxDocumentBytes = bytes;
            return this;
        }

        /** The most of a response body read, in bytes; the rest is cut off. 1 MiB by default. */
        public Builder maxResponseBytes(int bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("maxResponseBytes must be positive");
            }
            this.maxResponseBytes = bytes;
            return this;
        }

        /**
         * How long connecting to the API may take; 5 s by default. Each call's deadline is the gate's call
         * timeout, less a margin so that the source's own timeout message (which says whether a write may have
         * taken effect) is the one the caller reads.
         */
        public Builder connectTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout must be positive");
            }
            if (client != null) {
                throw new IllegalStateException("set connectTimeout before documentUrl");
            }
            this.connectTimeout = timeout;
            return this;
        }

        private java.net.http.HttpClient client() {
            if (client == null) {
                client = HttpExchange.newClient(connectTimeout);
            }
            return client;
        }

        /**
         * Checks the configuration and builds the source.
         *
         * @throws IllegalStateException if there is no document or no server
         */
        public OpenApiSource build() {
            if (document == null) {
                throw new IllegalStateException("openapi:" + name + " has no document: call document, documentResource, "
                        + "documentUrl or documentText");
            }
            if (servers.isEmpty()) {
                throw new IllegalStateException("openapi:" + name + " has no server: call server(URI) with the base URL "
                        + "requests may go to (the document's own servers are not trusted)");
            }
            client();
            return new OpenApiSource(this);
        }
    }
}
