package dev.toolgate.source;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * The host's resolver as one source sees it: it remembers every value it handed out so the values
 * can be cut out of that source's results and messages (a server that echoes its headers, an error
 * that quotes a connection string) before the gate redacts, stores or returns anything.
 */
final class ScrubbingSecrets implements SecretResolver {

    static final String MARK = "[redacted]";
    /** Shorter values would cut ordinary words out of results; such secrets are not worth the name. */
    private static final int MIN_LENGTH = 4;

    private final SecretResolver host;
    private final Set<String> handedOut = ConcurrentHashMap.newKeySet();

    ScrubbingSecrets(SecretResolver host) {
        this.host = host;
    }

    @Override
    public Optional<String> secret(String name) {
        Optional<String> value = host.secret(name);
        value.filter(v -> v.length() >= MIN_LENGTH).ifPresent(handedOut::add);
        return value;
    }

    String scrub(String text) {
        if (text == null || handedOut.isEmpty()) {
            return text;
        }
        String out = text;
        for (String value : handedOut) {
            if (out.contains(value)) {
                out = out.replace(value, MARK);
            }
        }
        return out;
    }

    JsonNode scrub(JsonNode node) {
        if (node == null || handedOut.isEmpty()) {
            return node;
        }
        if (node.isString()) {
            String text = node.asString();
            String clean = scrub(text);
            return clean.equals(text) ? node : StringNode.valueOf(clean);
        }
        if (node instanceof ObjectNode object) {
            ObjectNode copy = object.objectNode();
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                copy.set(scrub(field.getKey()), scrub(field.getValue()));
            }
            return copy;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode copy = array.arrayNode();
            array.forEach(element -> copy.add(scrub(element)));
            return copy;
        }
        return node;
    }
}
