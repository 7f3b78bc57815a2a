package dev.toolgate.openapi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * An OpenAPI 3.0, 3.1 or 3.2 document read into a JSON tree, with local {@code $ref} resolution.
 * Parsing is bounded: nesting depth, string length and (for YAML) aliases, so a hostile document
 * cannot exhaust the stack or the heap. References outside the document are never followed: a
 * document must not make the gate fetch anything.
 */
final class ParsedDocument {

    /** Deepest nesting accepted in a document; real documents stay far below it. */
    static final int MAX_DEPTH = 128;
    /** Longest chain of references followed before giving up. */
    private static final int MAX_REF_HOPS = 32;

    private static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxNestingDepth(MAX_DEPTH)
            .maxStringLength(5_000_000)
            .build();
    private static final JsonMapper JSON = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build())
            .build();

    private final JsonNode root;
    private final String version;
    private final String location;

    private ParsedDocument(JsonNode root, String version, String location) {
        this.root = root;
        this.version = version;
        this.location = location;
    }

    /** Parses JSON or YAML (by the first character) and checks that it is an OpenAPI 3 document. */
    static ParsedDocument parse(byte[] bytes, String location, long maxBytes) {
        JsonNode root;
        try {
            root = looksLikeJson(bytes) ? JSON.readTree(bytes) : yaml(maxBytes).readTree(bytes);
        } catch (JacksonException e) {
            throw new OpenApiDocumentException(location, "the document is neither valid JSON nor valid YAML: "
                    + firstLine(e.getOriginalMessage()));
        } catch (RuntimeException e) {
            // snakeyaml-engine's own limits (aliases, code points) surface as its exceptions
            throw new OpenApiDocumentException(location, "the document cannot be read as YAML: " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new OpenApiDocumentException(location, "the document is not a JSON or YAML object");
        }
        if (root.has("swagger")) {
            throw new OpenApiDocumentException(location, "this is a Swagger " + root.path("swagger").asString("")
                    + " document; only OpenAPI 3.0, 3.1 and 3.2 are read (convert it first)");
        }
        String version = root.path("openapi").asString("");
        if (!version.matches("3\\.[012]\\.\\d+(-.*)?")) {
            throw new OpenApiDocumentException(location, "the document names no OpenAPI version 3.0, 3.1 or 3.2 in 'openapi'"
                    + (version.isEmpty() ? "" : " (it says '" + version + "')"));
        }
        JsonNode paths = root.path("paths");
        if (!paths.isMissingNode() && !paths.isObject()) {
            throw new OpenApiDocumentException("/paths", "'paths' must be an object");
        }
        return new ParsedDocument(root, version, location);
    }

    private static YAMLMapper yaml(long maxBytes) {
        LoadSettings settings = LoadSettings.builder()
                .setMaxAliasesForCollections(50)
                .setAllowDuplicateKeys(false)
                .setAllowRecursiveKeys(false)
                .setCodePointLimit((int) Math.min(Integer.MAX_VALUE, maxBytes))
                .build();
        return YAMLMapper.builder(YAMLFactory.builder().loadSettings(settings).streamReadConstraints(CONSTRAINTS).build())
                .build();
    }

    private static boolean looksLikeJson(byte[] bytes) {
        int i = 0;
        if (bytes.length >= 3 && (bytes[0] & 0xff) == 0xEF && (bytes[1] & 0xff) == 0xBB && (bytes[2] & 0xff) == 0xBF) {
            i = 3;
        }
        for (; i < bytes.length; i++) {
            byte b = bytes[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b == '{';
            }
        }
        return false;
    }

    private static String firstLine(String message) {
        String text = message == null ? "" : message.strip();
        int newline = text.indexOf('\n');
        text = newline < 0 ? text : text.substring(0, newline);
        return text.length() <= 300 ? text : text.substring(0, 299) + "…";
    }

    JsonNode root() {
        return root;
    }

    /** The version the document states, such as {@code 3.0.3}. */
    String version() {
        return version;
    }

    /** True for OpenAPI 3.0, whose schemas are a JSON Schema dialect of their own ({@code nullable}, ...). */
    boolean isVersion30() {
        return version.startsWith("3.0.");
    }

    String location() {
        return location;
    }

    /**
     * The node itself, or the node its {@code $ref} chain ends at. Used for parameters, request bodies
     * and path items, where a reference replaces the object.
     *
     * @throws OpenApiDocumentException for an external, broken or circular reference
     */
    JsonNode follow(JsonNode node, String where) {
        JsonNode current = node;
        String at = where;
        for (int hop = 0; hop <= MAX_REF_HOPS; hop++) {
            if (current == null || !current.isObject() || !current.has("$ref")) {
                return current;
            }
            String ref = reference(current, at);
            current = resolve(ref, at);
            at = ref.substring(1);
        }
        throw new OpenApiDocumentException(where, "more than " + MAX_REF_HOPS + " references in a row (a reference cycle?)");
    }

    /**
     * The node a local reference ({@code #/components/...}) points at.
     *
     * @throws OpenApiDocumentException for an external reference, or one that points at nothing
     */
    JsonNode resolve(String ref, String where) {
        if (ref.isBlank()) {
            throw new OpenApiDocumentException(where, "the $ref is empty");
        }
        if (!ref.startsWith("#")) {
            throw new OpenApiDocumentException(where, "the reference '" + shorten(ref) + "' is not a local '#/...' pointer; "
                    + "references to other files, URLs or $id/$anchor names are not followed (bundle the document "
                    + "into one file with '#/components/...' references)");
        }
        JsonNode target = root;
        for (String token : tokens(ref.substring(1))) {
            if (target.isObject()) {
                target = target.get(token);
            } else if (target.isArray() && token.matches("0|[1-9]\\d{0,8}")) {
                target = target.get(Integer.parseInt(token));
            } else {
                target = null;
            }
            if (target == null) {
                throw new OpenApiDocumentException(where, "the reference '" + shorten(ref) + "' points at nothing");
            }
        }
        return target;
    }

    /**
     * The text of a node's {@code $ref}.
     *
     * @throws OpenApiDocumentException if the {@code $ref} is not a string, as when YAML read an unquoted
     *                                  {@code #/...} as a comment
     */
    static String reference(JsonNode node, String where) {
        JsonNode ref = node.get("$ref");
        if (ref != null && ref.isString()) {
            return ref.asString();
        }
        if (ref == null || ref.isNull()) {
            throw new OpenApiDocumentException(where, "the $ref is null, not a reference: in YAML an unquoted "
                    + "'$ref: #/...' reads as a comment; quote it ('$ref: \"#/components/...\"')");
        }
        throw new OpenApiDocumentException(where, "the $ref is " + ref.getNodeType().name().toLowerCase(Locale.ROOT)
                + ", not a string");
    }

    /** The unescaped tokens of a JSON pointer in a URI fragment ({@code /components/schemas/A~1B}). */
    static List<String> tokens(String fragment) {
        String pointer;
        try {
            pointer = URLDecoder.decode(fragment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // a broken percent-escape (%zz, a trailing %) fails this reference, not the whole listing
            throw new OpenApiDocumentException("", "the reference '#" + shorten(fragment) + "' has a broken "
                    + "percent-escape");
        }
        List<String> tokens = new ArrayList<>();
        if (pointer.isEmpty()) {
            return tokens;
        }
        if (!pointer.startsWith("/")) {
            throw new OpenApiDocumentException("", "the reference '#" + shorten(fragment) + "' is not a JSON pointer");
        }
        for (String raw : pointer.substring(1).split("/", -1)) {
            tokens.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return tokens;
    }

    /** Escapes one JSON pointer token. */
    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    static String shorten(String text) {
        return text.length() <= 200 ? text : text.substring(0, 199) + "…";
    }
}
