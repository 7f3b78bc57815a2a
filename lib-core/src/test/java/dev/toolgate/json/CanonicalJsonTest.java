package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class CanonicalJsonTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static String canonical(String json) {
        return CanonicalJson.canonicalize(Json.parse(json));
    }

    private static String canonical(JsonNode node) {
        return CanonicalJson.canonicalize(node);
    }

    @Test
    void sortsKeysAtEveryDepthAndDropsWhitespace() {
        String json = "{ \"b\": 1, \"a\": { \"y\": [1, {\"q\": 1, \"p\": 2}], \"x\": null }, \"c\": [true, false] }";

        assertThat(canonical(json)).isEqualTo("{\"a\":{\"x\":null,\"y\":[1,{\"p\":2,\"q\":1}]},\"b\":1,\"c\":[true,false]}");
    }

    @Test
    void keyOrderDoesNotChangeTheHash() {
        JsonNode one = Json.parse("{\"user\":{\"name\":\"ann\",\"roles\":[\"a\",\"b\"]},\"limit\":10,\"q\":{\"z\":1,\"y\":2}}");
        JsonNode other = Json.parse("{\"q\":{\"y\":2,\"z\":1},\"limit\":10,\"user\":{\"roles\":[\"a\",\"b\"],\"name\":\"ann\"}}");

        assertThat(CanonicalJson.sha256Hex(one)).isEqualTo(CanonicalJson.sha256Hex(other));
        assertThat(CanonicalJson.sha256(one)).isEqualTo(CanonicalJson.sha256(other));
    }

    @Test
    void keyOrderNeverChangesTheHashOfRandomTrees() {
        RandomJson random = new RandomJson(new Random(8785));
        for (int i = 0; i < 300; i++) {
            JsonNode tree = random.tree(5);
            assertThat(CanonicalJson.sha256Hex(reversed(tree))).isEqualTo(CanonicalJson.sha256Hex(tree));
        }
    }

    /** A copy with the members of every object in reverse order. */
    private static JsonNode reversed(JsonNode node) {
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> members = List.copyOf(node.properties());
            ObjectNode copy = NODES.objectNode();
            for (int i = members.size() - 1; i >= 0; i--) {
                copy.set(members.get(i).getKey(), reversed(members.get(i).getValue()));
            }
            return copy;
        }
        if (node.isArray()) {
            var copy = NODES.arrayNode();
            node.forEach(element -> copy.add(reversed(element)));
            return copy;
        }
        return node;
    }

    @Test
    void arrayOrderMatters() {
        assertThat(CanonicalJson.sha256Hex(Json.parse("{\"a\":[1,2]}")))
                .isNotEqualTo(CanonicalJson.sha256Hex(Json.parse("{\"a\":[2,1]}")));
    }

    @Test
    void differentValuesHashDifferently() {
        assertThat(CanonicalJson.sha256Hex(Json.parse("{\"a\":\"1\"}")))
                .isNotEqualTo(CanonicalJson.sha256Hex(Json.parse("{\"a\":1}")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "1.0", "1e0", "1E+0", "10e-1", "1.000"})
    void spellingsOfOneHashEqual(String one) {
        JsonNode node = Json.parse("{\"n\":" + one + "}");

        assertThat(canonical(node)).isEqualTo("{\"n\":1}");
        assertThat(CanonicalJson.sha256Hex(node)).isEqualTo(CanonicalJson.sha256Hex(Json.parse("{\"n\":1}")));
    }

    @Test
    void integralValuesOfEveryNodeTypeAreWrittenAsExactIntegers() {
        assertThat(canonical(NODES.numberNode(100))).isEqualTo("100");
        assertThat(canonical(NODES.numberNode(1e2))).isEqualTo("100");
        assertThat(canonical(NODES.numberNode(100f))).isEqualTo("100");
        assertThat(canonical(NODES.numberNode(new BigDecimal("1E+2")))).isEqualTo("100");
        assertThat(canonical(NODES.numberNode(new BigDecimal("100.000")))).isEqualTo("100");
        assertThat(canonical(NODES.numberNode(BigInteger.valueOf(-100)))).isEqualTo("-100");
        assertThat(canonical(NODES.numberNode(Long.MIN_VALUE))).isEqualTo("-9223372036854775808");
        assertThat(canonical(NODES.numberNode((short) 7))).isEqualTo("7");
    }

    @Test
    void negativeZeroIsZero() {
        assertThat(canonical(NODES.numberNode(-0.0))).isEqualTo("0");
        assertThat(canonical("-0.0")).isEqualTo("0");
        assertThat(canonical(NODES.numberNode(new BigDecimal("-0.000")))).isEqualTo("0");
    }

    @Test
    void integersBeyondTwoToThe53AreExactNotRoundedAsInJcs() {
        assertThat(canonical(NODES.numberNode(9007199254740993L))).isEqualTo("9007199254740993");
        assertThat(canonical("123456789012345680000")).isEqualTo("123456789012345680000");
        // a double with an integral value is written as the exact value of that double
        assertThat(canonical(NODES.numberNode(123456789012345680000d))).isEqualTo("123456789012345683968");
        assertThat(canonical("1e21")).isEqualTo("1000000000000000000000");
        assertThat(canonical("1.5e21")).isEqualTo("1500000000000000000000");
        assertThat(canonical(NODES.numberNode(new BigDecimal("1.5E+21")))).isEqualTo("1500000000000000000000");
    }

    @Test
    void nonIntegralNumbersUseEcmaScriptForm() {
        assertThat(canonical("0.5")).isEqualTo("0.5");
        assertThat(canonical("-1.25")).isEqualTo("-1.25");
        assertThat(canonical("0.000001")).isEqualTo("0.000001");
        assertThat(canonical("1e-7")).isEqualTo("1e-7");
        assertThat(canonical("1.5E-7")).isEqualTo("1.5e-7");
        assertThat(canonical("123.4560")).isEqualTo("123.456");
        assertThat(canonical("4.50")).isEqualTo("4.5");
        assertThat(canonical("2e-3")).isEqualTo("0.002");
        assertThat(canonical("333333333.33333329")).isEqualTo("333333333.3333333");
        assertThat(canonical(NODES.numberNode(0.5f))).isEqualTo("0.5");
    }

    @Test
    void decimalAndDoubleSpellingsOfTheSameDoubleAgree() {
        assertThat(canonical(NODES.numberNode(new BigDecimal("0.1")))).isEqualTo(canonical(NODES.numberNode(0.1)));
        assertThat(canonical(NODES.numberNode(new BigDecimal("0.10000000000000000001")))).isEqualTo("0.1");
        // rounds to the double 2^53 + 2, which is integral
        assertThat(canonical(NODES.numberNode(new BigDecimal("9007199254740993.5")))).isEqualTo("9007199254740994");
        // rounds to the double 0
        assertThat(canonical(NODES.numberNode(new BigDecimal("1E-400")))).isEqualTo("0");
    }

    /** Number serialization test vectors of RFC 8785, appendix B, as IEEE 754 bit patterns. */
    @ParameterizedTest
    @CsvSource({
        "0000000000000000, 0",
        "8000000000000000, 0",
        "0000000000000001, 5e-324",
        "8000000000000001, -5e-324",
        "7fefffffffffffff, 1.7976931348623157e+308",
        "ffefffffffffffff, -1.7976931348623157e+308",
        "4340000000000000, 9007199254740992",
        "c340000000000000, -9007199254740992",
        "4430000000000000, 295147905179352830000",
        "44b52d02c7e14af5, 9.999999999999997e+22",
        "44b52d02c7e14af6, 1e+23",
        "44b52d02c7e14af7, 1.0000000000000001e+23",
        "444b1ae4d6e2ef4e, 999999999999999700000",
        "444b1ae4d6e2ef4f, 999999999999999900000",
        "444b1ae4d6e2ef50, 1e+21",
        "3eb0c6f7a0b5ed8c, 9.999999999999997e-7",
        "3eb0c6f7a0b5ed8d, 0.000001",
        "41b3de4355555553, 333333333.3333332",
        "41b3de4355555554, 333333333.33333325",
        "41b3de4355555555, 333333333.3333333",
        "41b3de4355555556, 333333333.3333334",
        "41b3de4355555557, 333333333.33333343",
        "becbf647612f3696, -0.0000033333333333333333",
        "43143ff3c1cb0959, 1424953923781206.2"
    })
    void ecmaScriptFormMatchesJcsVectors(String bits, String expected) {
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(bits, 16));

        assertThat(CanonicalJson.ecmaScriptString(value)).isEqualTo(expected);
    }

    @Test
    void ecmaScriptFormUsesExponentsExactlyWhereEcmaScriptDoes() {
        assertThat(CanonicalJson.ecmaScriptString(1e21)).isEqualTo("1e+21");
        assertThat(CanonicalJson.ecmaScriptString(1.5e21)).isEqualTo("1.5e+21");
        assertThat(CanonicalJson.ecmaScriptString(1e20)).isEqualTo("100000000000000000000");
        assertThat(CanonicalJson.ecmaScriptString(1e-7)).isEqualTo("1e-7");
        assertThat(CanonicalJson.ecmaScriptString(1.5e-7)).isEqualTo("1.5e-7");
        assertThat(CanonicalJson.ecmaScriptString(1e-6)).isEqualTo("0.000001");
        assertThat(CanonicalJson.ecmaScriptString(2e23)).isEqualTo("2e+23"); // JDK 17 Double.toString: 1.9999999999999998E23
        assertThat(CanonicalJson.ecmaScriptString(0.1 + 0.2)).isEqualTo("0.30000000000000004");
    }

    @Test
    void ecmaScriptFormRoundTripsRandomDoubles() {
        Random random = new Random(17);
        for (int i = 0; i < 2000; i++) {
            double value = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(value)) {
                assertThat(Double.parseDouble(CanonicalJson.ecmaScriptString(value))).isEqualTo(value);
            }
        }
    }

    @Test
    void rfc8785ExampleDeviatesOnlyInTheIntegralNumber() {
        String input = "{\"numbers\":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"
                + "\"string\":\"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\","
                + "\"literals\":[null,true,false]}";

        // JCS writes 1e+30; the double nearest 10^30 is written exactly here
        assertThat(canonical(input)).isEqualTo("{\"literals\":[null,true,false],"
                + "\"numbers\":[333333333.3333333,1000000000000000019884624838656,4.5,0.002,1e-27],"
                + "\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
    }

    @Test
    void escapesOnlyWhatJcsEscapes() {
        String value = "q\" b\\ \b\f\n\r\t \u0000\u0001\u001f \u007f / é € 😀 \u2028";

        assertThat(canonical(NODES.stringNode(value)))
                .isEqualTo("\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0000\\u0001\\u001f \u007f / é € 😀 \u2028\"");
    }

    @Test
    void escapesKeysLikeValues() {
        ObjectNode node = NODES.objectNode();
        node.put("a\nb\u0002", 1);

        assertThat(canonical(node)).isEqualTo("{\"a\\nb\\u0002\":1}");
    }

    @Test
    void unpairedSurrogatesAreEscapedSoTheyCannotCollide() {
        assertThat(canonical(NODES.stringNode("x\ud800y\udc00z\udbff"))).isEqualTo("\"x\\ud800y\\udc00z\\udbff\"");
        assertThat(CanonicalJson.sha256Hex(NODES.stringNode("\ud800")))
                .isNotEqualTo(CanonicalJson.sha256Hex(NODES.stringNode("?")));
        assertThat(canonical(NODES.stringNode("\ud83d\ude00"))).isEqualTo("\"😀\"");
    }

    @Test
    void sortsKeysByUtf16CodeUnitsAsInRfc8785() {
        ObjectNode node = NODES.objectNode();
        for (String key : List.of("\u20ac", "\r", "\ufb33", "1", "\ud83d\ude00", "\u0080", "\u00f6")) {
            node.put(key, key.codePointAt(0));
        }

        // U+1F600 sorts before U+FB33 because its high surrogate, U+D83D, does
        assertThat(canonical(node)).isEqualTo(
                "{\"\\r\":13,\"1\":49,\"\u0080\":128,\"ö\":246,\"€\":8364,\"😀\":128512,\"\ufb33\":64307}");
    }

    @Test
    void hashIsSha256OfTheCanonicalUtf8Bytes() {
        JsonNode node = Json.parse("{\"b\":\"€\",\"a\":1}");
        byte[] canonicalBytes = "{\"a\":1,\"b\":\"€\"}".getBytes(StandardCharsets.UTF_8);

        assertThat(CanonicalJson.sha256Hex(node)).isEqualTo(CanonicalJson.sha256Hex(canonicalBytes)).hasSize(64);
        assertThat(CanonicalJson.sha256(node)).hasSize(32);
    }

    @Test
    void hashesRawBytes() {
        assertThat(CanonicalJson.sha256Hex("abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(CanonicalJson.sha256Hex(new byte[0]))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void writesLiterals() {
        assertThat(canonical("[null,true,false,\"\",{},[]]")).isEqualTo("[null,true,false,\"\",{},[]]");
    }

    @Test
    void refusesNonFiniteNumbers() {
        assertThatThrownBy(() -> canonical(NODES.numberNode(Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
        assertThatThrownBy(() -> canonical(NODES.numberNode(Float.NEGATIVE_INFINITY)))
                .isInstanceOf(IllegalArgumentException.class);
        // Jackson reads an out-of-range literal as an infinite double
        assertThatThrownBy(() -> canonical("{\"a\":[1e400]}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> canonical(NODES.numberNode(new BigDecimal("1E+400").add(new BigDecimal("0.5")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("range of a double");
    }

    @Test
    void refusesIntegersTooLongToExpand() {
        assertThatThrownBy(() -> canonical(NODES.numberNode(new BigDecimal("1E+999999999"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000 digits");
        assertThat(canonical(NODES.numberNode(new BigDecimal("1E+999")))).isEqualTo("1" + "0".repeat(999));
    }

    @Test
    void refusesNodesWithoutJsonForm() {
        assertThatThrownBy(() -> canonical(NODES.binaryNode(new byte[] {1})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BINARY");
        assertThatThrownBy(() -> canonical(NODES.arrayNode().add(NODES.pojoNode(new Object()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("POJO");
        assertThatThrownBy(() -> canonical(NODES.missingNode())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void doesNotModifyItsArgument() {
        JsonNode node = Json.parse("{\"b\":1,\"a\":[2,1]}");

        CanonicalJson.canonicalize(node);

        assertThat(Json.write(node)).isEqualTo("{\"b\":1,\"a\":[2,1]}");
    }
}
