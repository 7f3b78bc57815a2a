package dev.toolgate.json;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ContainerNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The part of {@link Redactor#redact} that walks a tree: a copy with the values of sensitive keys hidden,
 * keys and strings redacted as text, and JSON inside strings read and redacted as a tree. One per
 * redactor, which it asks to redact text.
 */
final class TreeRedaction {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Reads JSON inside strings; refuses duplicate keys, which a tree would silently drop. */
    private static final JsonMapper EMBEDDED_JSON =
            Json.mapper().rebuild().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** How many levels of JSON in a string in JSON are parsed; deeper ones are redacted as text. */
    private static final int MAX_EMBEDDED_LEVELS = 8;

    private final Redactor redactor;

    /** The terms as compared: letters and digits only, lowercase. */
    private final List<String> matchTerms;

    /**
     * What short keys of trees became, remembered: tools answer with the same keys call after call, and
     * a key's verdict depends on nothing else. At most {@value #MAX_REMEMBERED_KEYS} keys of at most
     * {@value #MAX_REMEMBERED_KEY_CHARS} characters; others are judged every time, as are all keys
     * once it is full. A verdict reached by failing closed is never remembered.
     */
    private final Map<String, KeyVerdict> keyVerdicts = new ConcurrentHashMap<>();
    private static final int MAX_REMEMBERED_KEYS = 1024;
    private static final int MAX_REMEMBERED_KEY_CHARS = 64;

    /** A key of a tree as shown after redaction, and whether its value is hidden whatever it is. */
    private record KeyVerdict(String safeKey, boolean sensitive) {
        static final KeyVerdict FAILED = new KeyVerdict(Redactor.REDACTED, true);
    }

    TreeRedaction(Redactor redactor, List<String> matchTerms) {
        this.redactor = redactor;
        this.matchTerms = matchTerms;
    }

    /** A container of the input and its copy, waiting to be filled. */
    private record Pending(JsonNode source, ContainerNode<?> copy) {
    }

    /** Walks the tree with an explicit stack, so that no depth can overflow the call stack. */
    JsonNode redactTree(JsonNode root, int embeddedLevel) {
        if (!root.isContainer()) {
            return redactLeaf(root, embeddedLevel);
        }
        Deque<Pending> pending = new ArrayDeque<>();
        ContainerNode<?> rootCopy = emptyLike(root);
        pending.push(new Pending(root, rootCopy));
        while (!pending.isEmpty()) {
            Pending next = pending.pop();
            if (next.source().isObject()) {
                ObjectNode copy = (ObjectNode) next.copy();
                Map<String, Integer> renamed = null;
                for (Map.Entry<String, JsonNode> member : next.source().properties()) {
                    String key = member.getKey();
                    KeyVerdict verdict = verdict(key);
                    String safeKey = verdict.safeKey();
                    if (!safeKey.equals(key) || copy.has(safeKey)) {
                        renamed = renamed == null ? new HashMap<>() : renamed;
                        safeKey = unique(copy, safeKey, renamed);
                    }
                    JsonNode value = member.getValue();
                    if (verdict.sensitive()) {
                        copy.put(safeKey, Redactor.REDACTED);
                    } else if (value.isContainer()) {
                        ContainerNode<?> child = emptyLike(value);
                        copy.set(safeKey, child);
                        pending.push(new Pending(value, child));
                    } else {
                        copy.set(safeKey, redactLeaf(value, embeddedLevel));
                    }
                }
            } else {
                ArrayNode copy = (ArrayNode) next.copy();
                boolean insidePrivateBlock = false;
                for (JsonNode element : next.source()) {
                    if (element.isContainer()) {
                        ContainerNode<?> child = emptyLike(element);
                        copy.add(child);
                        pending.push(new Pending(element, child));
                    } else if (element.isString()) {
                        SecretShapes.Scan scan = redactStringValue(element.stringValue(), insidePrivateBlock, embeddedLevel);
                        insidePrivateBlock = scan.insidePrivateBlock();
                        copy.add(scan.text());
                    } else {
                        copy.add(redactLeaf(element, embeddedLevel));
                    }
                }
            }
        }
        return rootCopy;
    }

    private static ContainerNode<?> emptyLike(JsonNode container) {
        return container.isObject() ? NODES.objectNode() : NODES.arrayNode(container.size());
    }

    /**
     * What {@code key} becomes (its secret-shaped parts redacted) and whether its value is hidden; a key
     * that cannot be judged is replaced whole and its value hidden.
     */
    private KeyVerdict verdict(String key) {
        KeyVerdict known = keyVerdicts.get(key);
        if (known != null) {
            return known;
        }
        KeyVerdict verdict;
        try {
            verdict = new KeyVerdict(redactor.redactString(key, false).text(), KeyWords.containsTerm(KeyWords.split(key), matchTerms));
        } catch (RuntimeException | StackOverflowError e) {
            return KeyVerdict.FAILED;
        }
        if (key.length() <= MAX_REMEMBERED_KEY_CHARS && keyVerdicts.size() < MAX_REMEMBERED_KEYS) {
            keyVerdicts.putIfAbsent(key, verdict);
        }
        return verdict;
    }

    /** Keys whose verdicts are remembered (tests). */
    int rememberedKeys() {
        return keyVerdicts.size();
    }

    /** A key not yet in {@code copy}: the key itself, or numbered {@code key#2}, {@code key#3}, .... */
    private static String unique(ObjectNode copy, String key, Map<String, Integer> nextNumbers) {
        if (!copy.has(key)) {
            return key;
        }
        int number = nextNumbers.getOrDefault(key, 2);
        while (copy.has(key + "#" + number)) {
            number++;
        }
        nextNumbers.put(key, number + 1);
        return key + "#" + number;
    }

    /** A scalar, redacted; any other node is read as JSON first, and replaced whole if it cannot be. */
    private JsonNode redactLeaf(JsonNode leaf, int embeddedLevel) {
        if (leaf.isString()) {
            return NODES.stringNode(redactStringValue(leaf.stringValue(), false, embeddedLevel).text());
        }
        if (leaf.isPojo()) {
            // a POJO or raw value serializes as whatever it holds: redact what would be written
            try {
                return redactTree(EMBEDDED_JSON.readTree(Json.write(leaf)), embeddedLevel);
            } catch (RuntimeException unreadable) {
                return NODES.stringNode(Redactor.REDACTED);
            }
        }
        return leaf.deepCopy();
    }

    /** A string value, as JSON if it holds a JSON container, else as text; replaced whole on failure. */
    private SecretShapes.Scan redactStringValue(String value, boolean insidePrivateBlock, int embeddedLevel) {
        try {
            if (!insidePrivateBlock && embeddedLevel < MAX_EMBEDDED_LEVELS && looksLikeJsonContainer(value)) {
                JsonNode embedded = parseOrNull(value);
                if (embedded != null) {
                    JsonNode redacted = redactTree(embedded, embeddedLevel + 1);
                    return new SecretShapes.Scan(redacted.equals(embedded) ? value : Json.write(redacted), false);
                }
            }
            return redactor.redactString(value, insidePrivateBlock);
        } catch (RuntimeException | StackOverflowError e) {
            return new SecretShapes.Scan(Redactor.REDACTED, insidePrivateBlock);
        }
    }

    private static boolean looksLikeJsonContainer(String value) {
        String trimmed = value.strip();
        return trimmed.length() >= 2
                && (trimmed.charAt(0) == '{' && trimmed.charAt(trimmed.length() - 1) == '}'
                || trimmed.charAt(0) == '[' && trimmed.charAt(trimmed.length() - 1) == ']');
    }

    private static JsonNode parseOrNull(String value) {
        try {
            JsonNode node = EMBEDDED_JSON.readTree(value);
            return node != null && node.isContainer() ? node : null;
        } catch (JacksonException notJson) {
            return null;
        }
    }
}
