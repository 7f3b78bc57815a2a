package dev.toolgate.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Random JSON trees for property tests, reproducible from a seeded {@link Random}. */
final class RandomJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Characters worth testing: escapes, controls, multi-byte, surrogate pairs and unpaired ones. */
    private static final String[] SPECIAL = {
        "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\u0000", "\u001f", "\u007f", "é", "ß", "€", "\u2028",
        "\uffff", "😀", "\ud834\udd1e", "\ud800", "\udc00", "_truncated", "~", " "
    };

    private final Random random;
    private int nodesLeft;

    RandomJson(Random random) {
        this.random = random;
    }

    /**
     * A tree nested at most {@code maxDepth} containers deep, of at most a random number of nodes below
     * 2000 so that trees range from tiny to tens of kilobytes.
     */
    JsonNode tree(int maxDepth) {
        nodesLeft = 1 + random.nextInt(2000);
        return node(maxDepth);
    }

    /** An object nested at most {@code maxDepth} containers deep, sized like {@link #tree(int)}. */
    ObjectNode object(int maxDepth) {
        nodesLeft = 1 + random.nextInt(2000);
        return object(maxDepth, NODES.objectNode());
    }

    private JsonNode node(int maxDepth) {
        nodesLeft--;
        int roll = random.nextInt(10);
        if (maxDepth > 0 && roll < 3) {
            return object(maxDepth - 1, NODES.objectNode());
        }
        if (maxDepth > 0 && roll < 5) {
            ArrayNode array = NODES.arrayNode();
            for (int i = containerSize(); i > 0 && nodesLeft > 0; i--) {
                array.add(node(maxDepth - 1));
            }
            return array;
        }
        return scalar();
    }

    private ObjectNode object(int maxDepth, ObjectNode object) {
        for (int i = containerSize(); i > 0 && nodesLeft > 0; i--) {
            object.set(string(12), node(maxDepth));
        }
        return object;
    }

    /** Mostly small, sometimes empty or big containers. */
    private int containerSize() {
        return switch (random.nextInt(10)) {
            case 0 -> 0;
            case 1 -> 20 + random.nextInt(200);
            default -> 1 + random.nextInt(6);
        };
    }

    JsonNode scalar() {
        return switch (random.nextInt(12)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.booleanNode(random.nextBoolean());
            case 2 -> NODES.numberNode(random.nextInt());
            case 3 -> NODES.numberNode(random.nextLong());
            case 4 -> NODES.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 5 -> NODES.numberNode(new BigDecimal(BigInteger.valueOf(random.nextLong()), random.nextInt(40) - 20));
            case 6 -> NODES.numberNode(new BigInteger(100, random));
            case 7 -> NODES.stringNode(string(random.nextInt(10) == 0 ? 3000 : 40));
            default -> NODES.stringNode(string(16));
        };
    }

    /** A string of up to {@code maxLength} pieces, mixing ASCII, special and random BMP characters. */
    String string(int maxLength) {
        int length = random.nextInt(maxLength + 1);
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(8)) {
                case 0 -> s.append(SPECIAL[random.nextInt(SPECIAL.length)]);
                case 1 -> s.append((char) random.nextInt(0x10000));
                default -> s.append((char) ('a' + random.nextInt(26)));
            }
        }
        return s.toString();
    }
}
