package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeout;

import dev.toolgate.json.JsonTruncator.Truncation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class JsonTruncatorTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static int bytes(JsonNode node) {
        return Json.write(node).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void propertiesHoldForRandomTreesAndBudgets() {
        Random random = new Random(20240501);
        RandomJson trees = new RandomJson(random);
        int pruned = 0;
        for (int i = 0; i < 3000; i++) {
            JsonNode input = trees.tree(1 + random.nextInt(6));
            if (input.isObject()) {
                ((ObjectNode) input).remove(JsonTruncator.MARKER); // the reserved key has its own test
            }
            JsonNode original = input.deepCopy();
            int maxBytes = 64 + random.nextInt(20000 - 64 + 1);
            boolean fits = bytes(input) <= maxBytes;

            Truncation result = JsonTruncator.truncate(input, maxBytes);

            String written = Json.write(result.value());
            assertThat(written.getBytes(StandardCharsets.UTF_8).length).as("case %d", i).isLessThanOrEqualTo(maxBytes);
            assertThat(Json.parse(written)).as("case %d", i).isNotNull();
            assertThat(result.truncated()).as("case %d", i).isEqualTo(!fits);
            assertThat(JsonTruncator.fits(input, maxBytes)).as("fits, case %d", i).isEqualTo(fits);
            assertThat(result.value().path(JsonTruncator.MARKER).isBoolean()).as("case %d", i).isEqualTo(!fits);
            if (fits) {
                assertThat(result.value()).as("case %d", i).isEqualTo(input);
            } else {
                assertThat(result.value().get(JsonTruncator.MARKER).booleanValue()).isTrue();
                assertThat(isPrunedFrom(result.value(), input, true)).as("case %d", i).isTrue();
                pruned++;
            }
            assertThat(input).as("input unchanged").isEqualTo(original);
        }
        assertThat(pruned).as("enough cases exercise pruning").isGreaterThan(300);
    }

    @Test
    void fitsIsExactAtTheBoundaryAndFalseForATreeTooDeepToKeep() {
        ObjectNode tree = NODES.objectNode().put("pong", true).put("text", "x".repeat(100));
        int size = bytes(tree);
        assertThat(JsonTruncator.fits(tree, size)).isTrue();
        assertThat(JsonTruncator.fits(tree, size - 1)).isFalse();
        assertThat(JsonTruncator.truncate(tree, size - 1).truncated()).isTrue();
        JsonNode deep = NODES.arrayNode();
        for (int level = 1; level < JsonTruncator.MAX_DEPTH + 1; level++) {
            deep = NODES.arrayNode().add(deep);
        }
        assertThat(bytes(deep)).isLessThan(10_000);
        assertThat(JsonTruncator.fits(deep, 10_000)).as("%d levels", JsonTruncator.MAX_DEPTH + 1).isFalse();
        assertThat(JsonTruncator.truncate(deep, 10_000).truncated()).isTrue();
        assertThatThrownBy(() -> JsonTruncator.fits(null, 100)).isInstanceOf(NullPointerException.class);
    }

    /**
     * Whether {@code pruned} holds only what {@code source} holds: for objects a subset of the members in
     * the same order, for arrays a prefix, with equal or pruned values, and scalars whole.
     */
    private static boolean isPrunedFrom(JsonNode pruned, JsonNode source, boolean root) {
        if (root) {
            if (source.isObject()) {
                return isPrunedFrom(withoutMarker(pruned), source, false);
            }
            JsonNode inner = pruned.get(JsonTruncator.VALUE);
            return inner == null || isPrunedFrom(inner, source, false);
        }
        if (pruned.equals(source)) {
            return true;
        }
        if (pruned.isArray() && source.isArray()) {
            for (int i = 0; i < pruned.size(); i++) {
                if (!isPrunedFrom(pruned.get(i), source.get(i), false)) {
                    return false;
                }
            }
            return pruned.size() <= source.size();
        }
        if (pruned.isObject() && source.isObject()) {
            Iterator<String> sourceKeys = source.propertyNames().iterator();
            for (Map.Entry<String, JsonNode> member : pruned.properties()) {
                boolean found = false;
                while (!found && sourceKeys.hasNext()) {
                    found = sourceKeys.next().equals(member.getKey());
                }
                if (!found || !isPrunedFrom(member.getValue(), source.get(member.getKey()), false)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private static ObjectNode withoutMarker(JsonNode node) {
        ObjectNode copy = node.deepCopy().asObject();
        copy.remove(JsonTruncator.MARKER);
        return copy;
    }

    @Test
    void rootObjectsKeepTheirPrunedMembersInOrder() {
        Random random = new Random(99);
        RandomJson trees = new RandomJson(random);
        for (int i = 0; i < 500; i++) {
            ObjectNode input = trees.object(4);
            input.remove(JsonTruncator.MARKER);
            int maxBytes = 64 + random.nextInt(4000);

            Truncation result = JsonTruncator.truncate(input, maxBytes);

            if (result.truncated()) {
                assertThat(result.value().propertyNames().iterator().next()).isEqualTo(JsonTruncator.MARKER);
                assertThat(isPrunedFrom(withoutMarker(result.value()), input, false)).isTrue();
            }
        }
    }

    @Test
    void returnsAFittingTreeUnchanged() {
        JsonNode input = Json.parse("{\"id\":7,\"tags\":[\"a\",\"b\"],\"nested\":{\"x\":null}}");

        Truncation result = JsonTruncator.truncate(input);

        assertThat(result.truncated()).isFalse();
        assertThat(result.value()).isEqualTo(input).isNotSameAs(input);
    }

    @Test
    void aTreeOfExactlyTheBudgetFits() {
        ObjectNode input = NODES.objectNode();
        input.put("text", "é".repeat(100));
        int size = bytes(input);

        assertThat(JsonTruncator.truncate(input, size).truncated()).isFalse();
        assertThat(JsonTruncator.truncate(input, size - 1).truncated()).isTrue();
    }

    @Test
    void dropsAHugeStringWholeAndKeepsLaterMembers() {
        ObjectNode input = NODES.objectNode();
        input.put("id", 1);
        input.put("blob", "x".repeat(100_000));
        input.put("status", "ok");

        Truncation result = JsonTruncator.truncate(input, 200);

        assertThat(result.truncated()).isTrue();
        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"id\":1,\"status\":\"ok\"}");
    }

    @Test
    void keepsTheLongestArrayPrefixThatFits() {
        ArrayNode input = NODES.arrayNode();
        for (int i = 0; i < 10_000; i++) {
            input.add(i);
        }

        Truncation result = JsonTruncator.truncate(input, 100);

        JsonNode kept = result.value().get(JsonTruncator.VALUE);
        assertThat(result.truncated()).isTrue();
        assertThat(bytes(result.value())).isLessThanOrEqualTo(100);
        for (int i = 0; i < kept.size(); i++) {
            assertThat(kept.get(i).intValue()).isEqualTo(i);
        }
        ArrayNode oneMore = kept.deepCopy().asArray().add(kept.size());
        ObjectNode wider = result.value().deepCopy().asObject().set(JsonTruncator.VALUE, oneMore);
        assertThat(bytes(wider)).as("one more element would not fit").isGreaterThan(100);
    }

    @Test
    void anArrayStopsAtTheFirstElementThatDoesNotFit() {
        JsonNode input = Json.parse("[1,\"" + "y".repeat(500) + "\",2,3]");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"value\":[1]}");
    }

    @Test
    void anArrayWhoseFirstElementDoesNotFitBecomesEmpty() {
        JsonNode input = Json.parse("[\"" + "y".repeat(500) + "\"]");

        assertThat(Json.write(JsonTruncator.truncate(input, 64).value())).isEqualTo("{\"_truncated\":true,\"value\":[]}");
    }

    @Test
    void aScalarRootThatIsTooLargeLeavesOnlyTheMarker() {
        Truncation result = JsonTruncator.truncate(NODES.stringNode("z".repeat(1000)), 64);

        assertThat(result.truncated()).isTrue();
        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true}");
    }

    @Test
    void aSmallScalarRootFits() {
        Truncation result = JsonTruncator.truncate(NODES.stringNode("short"), 64);

        assertThat(result.truncated()).isFalse();
        assertThat(result.value()).isEqualTo(NODES.stringNode("short"));
    }

    @Test
    void keepsPartOfANestedContainerThatDoesNotFitWhole() {
        ObjectNode input = NODES.objectNode();
        input.put("name", "report");
        ArrayNode rows = input.putArray("rows");
        for (int i = 0; i < 1000; i++) {
            rows.addObject().put("row", i).put("label", "label-" + i);
        }

        Truncation result = JsonTruncator.truncate(input, 1024);

        JsonNode keptRows = result.value().get("rows");
        assertThat(result.value().get("name").stringValue()).isEqualTo("report");
        assertThat(keptRows.size()).isBetween(10, 999);
        assertThat(keptRows.get(0)).isEqualTo(rows.get(0));
        assertThat(bytes(result.value())).isLessThanOrEqualTo(1024);
    }

    @Test
    void keepsPrunedObjectsInsideArrays() {
        JsonNode input = Json.parse("[{\"a\":1,\"b\":\"" + "x".repeat(200) + "\",\"c\":3},4]");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"value\":[{\"a\":1,\"c\":3}]}");
    }

    @Test
    void dropsANestedContainerThatWouldBeEmpty() {
        JsonNode input = Json.parse("{\"a\":{\"big\":\"" + "x".repeat(200) + "\"},\"b\":[\"" + "x".repeat(200) + "\"],\"c\":1}");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"c\":1}");
    }

    @Test
    void neverCutsMultiByteText() {
        ArrayNode input = NODES.arrayNode();
        for (int i = 0; i < 100; i++) {
            input.add("😀é€\n\u0001");
        }

        for (int maxBytes = 64; maxBytes < 400; maxBytes++) {
            Truncation result = JsonTruncator.truncate(input, maxBytes);
            assertThat(bytes(result.value())).isLessThanOrEqualTo(maxBytes);
            result.value().get(JsonTruncator.VALUE).forEach(s -> assertThat(s.stringValue()).isEqualTo("😀é€\n\u0001"));
        }
    }

    @Test
    void aFittingInputKeepsItsOwnMarkerMember() {
        JsonNode input = Json.parse("{\"items\":[1,2],\"_truncated\":true}");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(result.truncated()).isFalse();
        assertThat(result.value()).isEqualTo(input);
    }

    @Test
    void aPrunedInputsOwnMarkerMemberIsReplaced() {
        JsonNode input = Json.parse("{\"a\":1,\"_truncated\":\"tool value\",\"big\":\"" + "x".repeat(200) + "\"}");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"a\":1}");
    }

    @Test
    void theMarkerKeyIsReservedOnlyAtTheRoot() {
        JsonNode input = Json.parse("{\"inner\":{\"_truncated\":false},\"big\":\"" + "x".repeat(200) + "\"}");

        Truncation result = JsonTruncator.truncate(input, 64);

        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"inner\":{\"_truncated\":false}}");
    }

    @Test
    void theResultSharesNoNodesWithTheInput() {
        ObjectNode input = Json.parse("{\"a\":{\"b\":[1]},\"big\":\"" + "x".repeat(200) + "\"}").asObject();

        for (int maxBytes : new int[] {64, 10_000}) {
            JsonNode result = JsonTruncator.truncate(input, maxBytes).value();
            ((ArrayNode) result.get("a").get("b")).add(2);
            assertThat(input.get("a").get("b").size()).isEqualTo(1);
        }
    }

    @Test
    void refusesBudgetsBelowTheMinimum() {
        assertThatThrownBy(() -> JsonTruncator.truncate(NODES.nullNode(), 63))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 64")
                .hasMessageContaining("63");
        assertThat(JsonTruncator.truncate(NODES.nullNode(), JsonTruncator.MIN_MAX_BYTES).truncated()).isFalse();
    }

    @Test
    void defaultBudgetIsTenKibibytes() {
        ObjectNode input = NODES.objectNode();
        input.put("text", "x".repeat(20_000));
        input.put("ok", true);

        Truncation result = JsonTruncator.truncate(input);

        assertThat(JsonTruncator.DEFAULT_MAX_BYTES).isEqualTo(10 * 1024);
        assertThat(Json.write(result.value())).isEqualTo("{\"_truncated\":true,\"ok\":true}");
    }

    @Test
    void cutsTenMegabyteDocumentsQuickly() {
        ObjectNode wide = NODES.objectNode();
        ArrayNode records = wide.putArray("records");
        for (int i = 0; i < 170_000; i++) {
            records.addObject().put("id", i).put("name", "record number " + i).putArray("tags").add("t").add(i);
        }
        assertThat(bytes(wide)).isGreaterThan(10_000_000);
        JsonNode oneString = NODES.stringNode("s".repeat(10_000_000));
        ArrayNode deep = NODES.arrayNode();
        ArrayNode level = deep;
        for (int depth = 0; depth < 50; depth++) {
            level = level.addArray();
            for (int i = 0; i < 2000; i++) {
                level.add("item " + i + " at depth " + depth);
            }
        }

        // each takes milliseconds; a cost that grew with the input would take minutes
        assertTimeout(Duration.ofSeconds(5), () -> {
            for (JsonNode input : new JsonNode[] {wide, oneString, deep}) {
                Truncation result = JsonTruncator.truncate(input);
                assertThat(result.truncated()).isTrue();
                assertThat(bytes(result.value())).isLessThanOrEqualTo(JsonTruncator.DEFAULT_MAX_BYTES);
            }
        });
        assertThat(bytes(JsonTruncator.truncate(wide).value())).isGreaterThan(JsonTruncator.DEFAULT_MAX_BYTES - 100);
    }

    /** {@code levels} nested containers, alternating objects and arrays, built without recursion. */
    private static JsonNode nested(int levels, boolean objectsFirst) {
        JsonNode inner = JsonNodeFactory.instance.stringNode("bottom");
        for (int level = levels; level >= 1; level--) {
            boolean object = (level % 2 == 1) == objectsFirst;
            if (object) {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                o.put("level", level);
                o.set("next", inner);
                inner = o;
            } else {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                a.add(level);
                a.add(inner);
                inner = a;
            }
        }
        return inner;
    }

    private static int depth(JsonNode node) {
        int depth = 0;
        java.util.ArrayDeque<Map.Entry<JsonNode, Integer>> stack = new java.util.ArrayDeque<>();
        stack.push(Map.entry(node, 1));
        while (!stack.isEmpty()) {
            Map.Entry<JsonNode, Integer> top = stack.pop();
            if (top.getKey().isContainer()) {
                depth = Math.max(depth, top.getValue());
                for (JsonNode child : top.getKey()) {
                    stack.push(Map.entry(child, top.getValue() + 1));
                }
            }
        }
        return depth;
    }

    @Test
    void aTreeTenThousandLevelsDeepIsCutAtTheReadableDepthWithoutExhaustingTheStack() {
        for (boolean objectsFirst : new boolean[] {true, false}) {
            JsonNode deep = nested(10_000, objectsFirst);
            Truncation t = JsonTruncator.truncate(deep, 1_000_000);
            assertThat(t.truncated()).isTrue();
            assertThat(t.value().get(JsonTruncator.MARKER).asBoolean()).isTrue();
            assertThat(depth(t.value())).as("as deep as readable, no deeper").isEqualTo(JsonTruncator.MAX_DEPTH);
            String written = Json.write(t.value());
            assertThat(Json.parse(written)).as("what is stored reads back").isEqualTo(t.value());
            assertThat(written).doesNotContain("bottom");
        }
    }

    @Test
    void aTreeAtTheDepthLimitIsKeptWholeAndOneLevelMoreIsCut() {
        JsonNode atLimit = nested(JsonTruncator.MAX_DEPTH, true);
        assertThat(depth(atLimit)).isEqualTo(JsonTruncator.MAX_DEPTH);
        Truncation kept = JsonTruncator.truncate(atLimit, 1_000_000);
        assertThat(kept.truncated()).isFalse();
        assertThat(kept.value()).isEqualTo(atLimit);

        JsonNode over = nested(JsonTruncator.MAX_DEPTH + 1, true);
        Truncation cut = JsonTruncator.truncate(over, 1_000_000);
        assertThat(cut.truncated()).isTrue();
        assertThat(depth(cut.value())).isLessThanOrEqualTo(JsonTruncator.MAX_DEPTH);
        assertThat(Json.parse(Json.write(cut.value()))).isEqualTo(cut.value());
    }
}
