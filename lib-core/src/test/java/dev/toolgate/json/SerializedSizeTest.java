package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

class SerializedSizeTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static long written(JsonNode node) {
        return Json.write(node).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void countsEveryCharacterAsTheMapperWritesIt() {
        for (char c = 0; c < Character.MAX_VALUE; c++) {
            JsonNode node = NODES.stringNode("a" + c + "b");
            assertThat(SerializedSize.of(node)).as("U+%04X", (int) c).isEqualTo(written(node));
        }
    }

    @Test
    void countsSurrogatePairsAndUnpairedSurrogates() {
        for (String s : new String[] {"😀", "\ud834\udd1e", "\ud800", "\udc00", "\udc00\ud800", "x\ud800", "\ud800\ud800\udc00"}) {
            JsonNode node = NODES.stringNode(s);
            assertThat(SerializedSize.of(node)).as(s).isEqualTo(written(node));
        }
    }

    @Test
    void countsNumbersOfEveryType() {
        JsonNode[] numbers = {
            NODES.numberNode(0), NODES.numberNode(-17), NODES.numberNode(Long.MIN_VALUE), NODES.numberNode((short) 3),
            NODES.numberNode(1e-7), NODES.numberNode(1e21), NODES.numberNode(-0.0), NODES.numberNode(0.1f),
            NODES.numberNode(Double.NaN), NODES.numberNode(Double.POSITIVE_INFINITY),
            NODES.numberNode(new BigDecimal("1E+2")), NODES.numberNode(new BigDecimal("-0.000123")),
            NODES.numberNode(new BigInteger("123456789012345678901234567890"))
        };
        for (JsonNode number : numbers) {
            assertThat(SerializedSize.of(number)).as(number.toString()).isEqualTo(written(number));
        }
    }

    @Test
    void countsOtherNodes() {
        JsonNode[] others = {
            NODES.nullNode(), NODES.booleanNode(true), NODES.booleanNode(false), NODES.binaryNode(new byte[] {1, 2, 3}),
            NODES.pojoNode(Map.of("k", "v")), NODES.objectNode(), NODES.arrayNode()
        };
        for (JsonNode other : others) {
            assertThat(SerializedSize.of(other)).as(other.toString()).isEqualTo(written(other));
        }
    }

    @Test
    void countsRandomTreesExactly() {
        RandomJson random = new RandomJson(new Random(42));
        for (int i = 0; i < 1000; i++) {
            JsonNode tree = random.tree(6);
            assertThat(SerializedSize.of(tree)).isEqualTo(written(tree));
        }
    }

    @Test
    void aLimitedCountIsExactWithinTheLimitAndExceedsItOtherwise() {
        Random seeds = new Random(7);
        RandomJson random = new RandomJson(seeds);
        for (int i = 0; i < 1000; i++) {
            JsonNode tree = random.tree(6);
            long size = written(tree);
            long limit = seeds.nextInt((int) Math.min(size * 2, Integer.MAX_VALUE - 1) + 1);
            long counted = SerializedSize.of(tree, limit);
            if (size <= limit) {
                assertThat(counted).isEqualTo(size);
            } else {
                assertThat(counted).isGreaterThan(limit);
            }
        }
    }

    @Test
    void aLimitedCountStopsEarly() {
        JsonNode huge = NODES.stringNode("x".repeat(5_000_000));
        var array = NODES.arrayNode();
        for (int i = 0; i < 1_000_000; i++) {
            array.add(i);
        }

        assertThat(SerializedSize.of(huge, 10)).isGreaterThan(10);
        assertThat(SerializedSize.of(array, 100)).isBetween(101L, 200L);
    }
}
