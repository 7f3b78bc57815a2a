package dev.toolgate.openapi;

import dev.toolgate.tool.Effect;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the operations of a parsed document into {@link Operation}s. An operation that cannot be
 * called safely or correctly is left out with a reason; it never fails the others.
 */
final class OperationReader {

    static final List<String> METHODS = List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Pattern NAME_CHARS = Pattern.compile("[^A-Za-z0-9_.-]");
    private static final Pattern HEADER_TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");
    private static final int MAX_NAME = 120;
    private static final int MAX_DESCRIPTION = 4000;
    /**
     * Headers the model never sets: credentials, framing, routing and hop-by-hop headers. OpenAPI itself
     * says parameters named Accept, Content-Type and Authorization are ignored.
     */
    static final Set<String> RESERVED_HEADERS = Set.of("accept", "content-type", "authorization", "proxy-authorization",
            "cookie", "set-cookie", "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade",
            "te", "trailer", "expect", "proxy-connection", "forwarded", "x-forwarded-for", "x-forwarded-host",
            "x-forwarded-proto", "x-real-ip", "via", "origin", "referer", "content-encoding", "accept-encoding",
            "x-http-method-override", "x-http-method", "x-method-override", "x-original-url", "x-rewrite-url");

    /** What the source's builder decided: servers, credentials' names, effects. */
    record Settings(List<URI> servers, Set<String> credentialHeaders, Set<String> credentialQuery,
                    Map<String, Effect> effects, boolean trustDocumentEffects, Set<String> only, Set<String> excluded) {
    }

    /** A listing: the operations that became tools and those left out, each {@code name: reason}. */
    record Result(List<Operation> operations, List<String[]> skipped) {
    }

    private final ParsedDocument document;
    private final Settings settings;
    private final List<Operation> operations = new ArrayList<>();
    private final List<String[]> skipped = new ArrayList<>();
    private final Map<String, String> names = new HashMap<>();

    private OperationReader(ParsedDocument document, Settings settings) {
        this.document = document;
        this.settings = settings;
    }

    static Result read(ParsedDocument document, Settings settings) {
        OperationReader reader = new OperationReader(document, settings);
        reader.readAll();
        return new Result(List.copyOf(reader.operations), List.copyOf(reader.skipped));
    }

    private void readAll() {
        JsonNode paths = document.root().path("paths");
        for (var entry : paths.properties()) {
            String path = entry.getKey();
            String where = "/paths/" + ParsedDocument.escape(path);
            JsonNode item;
            try {
                item = document.follow(entry.getValue(), where);
            } catch (OpenApiDocumentException e) {
                skipped.add(new String[] {path, e.getMessage()});
                continue;
            }
            if (item == null || !item.isObject()) {
                continue;
            }
            for (String method : METHODS) {
                JsonNode operation = item.get(method);
                if (operation == null) {
                    continue;
                }
                String opWhere = where + "/" + method;
                String name = name(operation, method, path);
                try {
                    if (!operation.isObject()) {
                        throw new OpenApiDocumentException(opWhere, "an operation must be an object");
                    }
                    if (!settings.only().isEmpty() && !settings.only().contains(name) || settings.excluded().contains(name)) {
                        continue;
                    }
                    String earlier = names.putIfAbsent(name, method.toUpperCase(Locale.ROOT) + " " + path);
                    if (earlier != null) {
                        throw new OpenApiDocumentException(opWhere, "the name is taken by " + earlier);
                    }
                    operations.add(operation(name, method, path, item, (ObjectNode) operation, opWhere));
                } catch (OpenApiDocumentException e) {
                    skipped.add(new String[] {name, e.getMessage()});
                }
            }
        }
    }

    /** The operationId made tool-safe, or a name derived from the method and path. */
    static String name(JsonNode operation, String method, String path) {
        String id = operation.path("operationId").asString("").strip();
        String name = NAME_CHARS.matcher(id).replaceAll("_");
        if (name.isEmpty() || name.chars().allMatch(c -> c == '_' || c == '.' || c == '-')) {
            StringBuilder derived = new StringBuilder(method.toLowerCase(Locale.ROOT));
            for (String segment : path.split("/")) {
                if (!segment.isEmpty()) {
                    derived.append('_').append(segment.replace("{", "").replace("}", ""));
                }
            }
            name = NAME_CHARS.matcher(derived).replaceAll("_");
        }
        return name.length() <= MAX_NAME ? name : name.substring(0, MAX_NAME);
    }

    private Operation operation(String name, String method, String documentPath, JsonNode item, ObjectNode op,
                                String where) {
        // a fragment is never sent: some documents use one to list two operations on one path
        int fragment = documentPath.indexOf('#');
        String path = fragment < 0 ? documentPath : documentPath.substring(0, fragment);
        URI server = server(op, item, where);
        List<String> placeholders = PathTemplates.checkTemplate(path, server, where);
        SchemaConverter schemas = new SchemaConverter(document);

        Map<String, Parameter> declared = new LinkedHashMap<>();
        collect(item.path("parameters"), where.substring(0, where.lastIndexOf('/')) + "/parameters", declared);
        collect(op.path("parameters"), where + "/parameters", declared);

        Map<String, Group> groups = new LinkedHashMap<>();
        List<Operation.Parameter> parameters = new ArrayList<>();
        Set<String> pathNames = new LinkedHashSet<>();
        for (Parameter parameter : declared.values()) {
            String reason = refusal(parameter);
            if (reason != null) {
                if (parameter.required) {
                    throw new OpenApiDocumentException(parameter.where, "the required " + parameter.in + " parameter '"
                            + ParsedDocument.shorten(parameter.name) + "' " + reason);
                }
                continue;
            }
            if (parameter.in.equals("path")) {
                if (!placeholders.contains(parameter.name)) {
                    continue; // described but not in the template: nothing to fill
                }
                pathNames.add(parameter.name);
            }
            JsonNode schema = schemas.convert(parameter.schema, parameter.where + "/schema");
            if (!parameter.description.isEmpty()) {
                schema = describe(schema, parameter.description);
            }
            boolean required = parameter.required || parameter.in.equals("path");
            groups.computeIfAbsent(parameter.in, in -> new Group()).add(parameter.name, schema, required);
            parameters.add(new Operation.Parameter(parameter.name, parameter.in, required, parameter.style,
                    parameter.explode, parameter.json));
        }
        for (String placeholder : placeholders) {
            if (!pathNames.contains(placeholder)) {
                throw new OpenApiDocumentException(where, "the path parameter '" + ParsedDocument.shorten(placeholder)
                        + "' of the template is not described");
            }
        }

        ObjectNode input = JsonNodeFactory.instance.objectNode();
        input.put("type", "object");
        ObjectNode properties = input.putObject("properties");
        ArrayNode required = JsonNodeFactory.instance.arrayNode();
        for (String in : List.of("path", "query", "header")) {
            Group group = groups.get(in);
            if (group != null) {
                properties.set(in, group.schema(in));
                if (group.anyRequired) {
                    required.add(in);
                }
            }
        }
        Operation.Body body = body(op, where, schemas, properties, required);
        if (!required.isEmpty()) {
            input.set("required", required);
        }
        input.put("additionalProperties", false);
        ObjectNode definitions = schemas.definitions();
        if (!definitions.isEmpty()) {
            input.set("$defs", definitions);
        }
        Effect effect = effect(name, method, op, where);
        String title = text(op.path("summary"));
        return new Operation(name, method.toUpperCase(Locale.ROOT), path, server, effect, title.isEmpty() ? null : shorten(title, 200),
                description(op, method, path), parameters, body, input, !server.equals(settings.servers().get(0)));
    }

    private Operation.Body body(ObjectNode op, String where, SchemaConverter schemas, ObjectNode properties, ArrayNode required) {
        JsonNode requestBody = op.get("requestBody");
        if (requestBody == null) {
            return null;
        }
        String at = where + "/requestBody";
        requestBody = document.follow(requestBody, at);
        if (requestBody == null || !requestBody.isObject()) {
            throw new OpenApiDocumentException(at, "a request body must be an object");
        }
        boolean bodyRequired = requestBody.path("required").asBoolean(false);
        JsonNode content = requestBody.path("content");
        String mediaType = null;
        for (var media : content.properties()) {
            if (isJson(media.getKey())) {
                mediaType = media.getKey();
                break;
            }
        }
        if (mediaType == null) {
            if (bodyRequired) {
                List<String> types = new ArrayList<>();
                content.propertyNames().forEach(types::add);
                throw new OpenApiDocumentException(at, "the required request body is only offered as "
                        + (types.isEmpty() ? "no media type" : String.join(", ", types)) + "; only JSON bodies are sent");
            }
            return null;
        }
        String mediaWhere = at + "/content/" + ParsedDocument.escape(mediaType);
        JsonNode schema = schemas.convert(content.path(mediaType).get("schema"), mediaWhere + "/schema");
        String description = text(requestBody.path("description"));
        properties.set("body", description.isEmpty() ? schema : describe(schema, description));
        if (bodyRequired) {
            required.add("body");
        }
        return new Operation.Body(mediaType.contains("*") ? "application/json" : mediaType, bodyRequired);
    }

    static boolean isJson(String mediaType) {
        String type = mediaType.toLowerCase(Locale.ROOT).split(";", 2)[0].strip();
        return type.equals("application/json") || type.startsWith("application/") && type.endsWith("+json")
                || type.equals("*/*") || type.equals("application/*");
    }

    private Effect effect(String name, String method, ObjectNode op, String where) {
        Effect byMethod = switch (method) {
            case "get", "head", "options" -> Effect.READ;
            case "delete" -> Effect.DESTRUCTIVE;
            default -> Effect.MUTATE;
        };
        Effect host = settings.effects().get(name);
        if (host != null) {
            return host;
        }
        JsonNode stated = op.get("x-toolgate-effect");
        if (stated == null) {
            return byMethod;
        }
        Effect byDocument;
        try {
            byDocument = Effect.fromWireName(stated.asString("").strip().toLowerCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new OpenApiDocumentException(where + "/x-toolgate-effect", "x-toolgate-effect must be read, mutate or "
                    + "destructive, not '" + ParsedDocument.shorten(stated.asString(stated.toString())) + "'");
        }
        // the document may only make a tool stricter, unless the host trusts it to relax one
        return byDocument.ordinal() >= byMethod.ordinal() || settings.trustDocumentEffects() ? byDocument : byMethod;
    }

    private String description(ObjectNode op, String method, String path) {
        StringBuilder text = new StringBuilder();
        if (op.path("deprecated").asBoolean(false)) {
            text.append("(Deprecated.) ");
        }
        String summary = text(op.path("summary"));
        String description = text(op.path("description"));
        text.append(summary);
        if (!description.isEmpty() && !description.equals(summary)) {
            text.append(summary.isEmpty() ? "" : "\n\n").append(description);
        }
        String call = "Calls " + method.toUpperCase(Locale.ROOT) + " " + path + ".";
        String body = shorten(text.toString().strip(), MAX_DESCRIPTION - call.length() - 2);
        return body.isEmpty() ? call : body + "\n\n" + call;
    }

    /** The server an operation's requests go to: the host's first, or one of the operation's the host allowed. */
    private URI server(ObjectNode op, JsonNode item, String where) {
        JsonNode servers = op.has("servers") ? op.get("servers") : item.get("servers");
        URI fallback = settings.servers().get(0);
        if (servers == null || !servers.isArray() || servers.isEmpty()) {
            return fallback;
        }
        List<String> offered = new ArrayList<>();
        for (JsonNode server : servers) {
            String url = substitute(server);
            offered.add(ParsedDocument.shorten(url));
            URI resolved;
            try {
                resolved = Servers.normalize(fallback.resolve(url.isEmpty() ? "/" : url));
            } catch (IllegalArgumentException e) {
                continue;
            }
            for (URI allowed : settings.servers()) {
                if (allowed.equals(resolved)) {
                    return allowed;
                }
            }
        }
        throw new OpenApiDocumentException(where + "/servers", "the operation's own servers " + offered
                + " are not among the servers the host allows " + settings.servers()
                + "; allow one with OpenApiSource.Builder.server(URI) to offer it");
    }

    private static String substitute(JsonNode server) {
        String url = server.path("url").asString("");
        for (var variable : server.path("variables").properties()) {
            url = url.replace("{" + variable.getKey() + "}", variable.getValue().path("default").asString(""));
        }
        return url;
    }

    private void collect(JsonNode list, String where, Map<String, Parameter> into) {
        if (list == null || list.isMissingNode()) {
            return;
        }
        if (!list.isArray()) {
            throw new OpenApiDocumentException(where, "parameters must be an array");
        }
        int i = 0;
        for (JsonNode raw : list) {
            String at = where + "/" + i++;
            JsonNode node = document.follow(raw, at);
            if (node == null || !node.isObject()) {
                throw new OpenApiDocumentException(at, "a parameter must be an object");
            }
            String name = node.path("name").asString("");
            String in = node.path("in").asString("");
            if (name.isEmpty() || !List.of("path", "query", "header", "cookie", "querystring").contains(in)) {
                throw new OpenApiDocumentException(at, "a parameter needs a name and 'in' of path, query, header or cookie");
            }
            String key = in + ":" + (in.equals("header") ? name.toLowerCase(Locale.ROOT) : name);
            into.put(key, new Parameter(node, name, in, at, document));
        }
    }

    /** Why the model may not set this parameter, or null if it may. */
    private String refusal(Parameter parameter) {
        switch (parameter.in) {
            case "cookie":
                return "is a cookie; cookies are not sent";
            case "querystring":
                return "is a whole query string; it is not sent";
            case "header": {
                String lower = parameter.name.toLowerCase(Locale.ROOT);
                if (!HEADER_TOKEN.matcher(parameter.name).matches()) {
                    return "is not a valid header name";
                }
                if (RESERVED_HEADERS.contains(lower) || lower.startsWith("proxy-") || lower.startsWith("sec-")
                        || lower.startsWith("x-forwarded-")) {
                    return "is a header the gate sets itself";
                }
                if (settings.credentialHeaders().contains(lower)) {
                    return "carries the source's credential";
                }
                return null;
            }
            case "query":
                return settings.credentialQuery().contains(parameter.name) ? "carries the source's credential" : null;
            default:
                return null;
        }
    }

    private static JsonNode describe(JsonNode schema, String description) {
        if (schema.isObject()) {
            ObjectNode copy = ((ObjectNode) schema).deepCopy();
            if (!copy.has("description")) {
                copy.put("description", shorten(description, 1000));
            }
            return copy;
        }
        return schema;
    }

    private static String text(JsonNode node) {
        return node.isString() ? node.asString().strip() : "";
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    /** One declared parameter, read. */
    private static final class Parameter {
        final String name;
        final String in;
        final String where;
        final boolean required;
        final String style;
        final boolean explode;
        final boolean json;
        final JsonNode schema;
        final String description;

        Parameter(JsonNode node, String name, String in, String where, ParsedDocument document) {
            this.name = name;
            this.in = in;
            this.where = where;
            this.required = node.path("required").asBoolean(false) || in.equals("path");
            String defaultStyle = in.equals("query") || in.equals("cookie") ? "form" : "simple";
            this.style = node.path("style").asString(defaultStyle);
            this.explode = node.path("explode").asBoolean(style.equals("form"));
            JsonNode schemaNode = node.get("schema");
            boolean byContent = false;
            if (schemaNode == null && node.path("content").isObject()) {
                for (var media : node.path("content").properties()) {
                    schemaNode = media.getValue().get("schema");
                    byContent = true;
                    break;
                }
            }
            this.json = byContent;
            this.schema = schemaNode;
            this.description = text(node.path("description"));
        }
    }

    /** The properties of one parameter location. */
    private static final class Group {
        final ObjectNode properties = JsonNodeFactory.instance.objectNode();
        final ArrayNode required = JsonNodeFactory.instance.arrayNode();
        boolean anyRequired;

        void add(String name, JsonNode schema, boolean isRequired) {
            properties.set(name, schema);
            if (isRequired) {
                required.add(name);
                anyRequired = true;
            }
        }

        ObjectNode schema(String in) {
            ObjectNode schema = JsonNodeFactory.instance.objectNode();
            schema.put("type", "object");
            schema.put("description", switch (in) {
                case "path" -> "Path parameters.";
                case "query" -> "Query parameters.";
                default -> "Request headers.";
            });
            schema.set("properties", properties);
            if (!required.isEmpty()) {
                schema.set("required", required);
            }
            schema.put("additionalProperties", false);
            return schema;
        }
    }
}
