package dev.toolgate.json;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON configuration Toolgate uses everywhere: one immutable Jackson 3 {@link JsonMapper}.
 *
 * <p>Reading is strict (unknown properties, {@code null} for primitives and trailing tokens are
 * errors) and bounded (nesting depth {@value #MAX_NESTING_DEPTH}, strings of at most
 * {@value #MAX_STRING_LENGTH} characters), so hostile model output cannot exhaust the stack or heap
 * before validation even starts. Hosts that need extra Jackson modules for their tool types pass their
 * own mapper to the builder, typically derived with {@code Json.mapper().rebuild()}.
 */
public final class Json {

    /** Deepest nesting of arrays and objects accepted in tool arguments. */
    public static final int MAX_NESTING_DEPTH = 64;

    /** Longest string value accepted in tool arguments, in characters. */
    public static final int MAX_STRING_LENGTH = 1_000_000;

    private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_NESTING_DEPTH)
                            .maxStringLength(MAX_STRING_LENGTH)
                            .build())
                    .build())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Writes trees: the root serializer found once, not looked up on every write. */
    private static final ObjectWriter NODE_WRITER = MAPPER.writerFor(JsonNode.class);

    private Json() {
    }

    /** The shared, thread-safe mapper. */
    public static JsonMapper mapper() {
        return MAPPER;
    }

    /** A new empty object node. */
    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /**
     * Parses JSON text strictly with the shared mapper.
     *
     * @throws JacksonException when the text is not one well-formed JSON value
     */
    public static JsonNode parse(String text) {
        return MAPPER.readTree(text);
    }

    /** Compact JSON text of a node (no insignificant whitespace, keys in their given order). */
    public static String write(JsonNode node) {
        return NODE_WRITER.writeValueAsString(node);
    }

    /** Converts any value to a JSON tree with the shared mapper. */
    public static JsonNode toTree(Object value) {
        return MAPPER.valueToTree(value);
    }
}
