package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.json.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The tool call's crossing writes the same JSON value as Jackson, in the tree's member order. */
class TreeTextTest {

    @Test
    void writesTheSameValueAsJacksonInTheTreesOrder() {
        ObjectNode node = Json.object();
        node.put("z", 1).put("a", -9_007_199_254_740_993L).put("d", 2.5).put("e", 1e21).put("tiny", 4.9e-324)
                .put("neg0", -0.0).put("t", true).put("f", false).putNull("n");
        node.put("text", "quote \" backslash \\ slash / nl \n tab \t cr \r bell \u0007 nul \u0000 del \u007f"
                + " ü 日本 😀 lone \ud800 and \udc00 line \u2028 para \u2029");
        node.put("", "empty key").put("key \"with\" \\ and \n", "odd key");
        ObjectNode odd = Json.object(); // numbers this writer leaves to Jackson
        odd.put("big", new BigInteger("123456789012345678901234567890")).put("dec", new BigDecimal("1.50"));
        odd.put("float", 1.5f).put("nan", Double.NaN).put("ok", 1);
        ArrayNode array = node.putArray("list");
        array.add(1).add("two").addNull().addObject().put("x", Json.object().size());
        array.addArray();
        for (JsonNode each : new JsonNode[] {node, array, odd, Json.object(), Json.parse("\"just a string\""), Json.parse("42"),
                Json.parse("null"), Json.parse("[[[]]]"), Json.parse("{\"b\":1,\"a\":{\"d\":[1,2.25,{\"c\":null}]}}")}) {
            String text = TreeText.write(each);
            assertThat(Json.parse(text)).as(text).isEqualTo(Json.parse(Json.write(each)));
        }
        String simple = TreeText.write(Json.parse("{\"b\":1,\"a\":[true,\"x\\u0001\"]}"));
        assertThat(simple).as("compact, in the tree's order, control characters escaped").isEqualTo(
                "{\"b\":1,\"a\":[true,\"x\\u0001\"]}");
    }

    @Test
    void aTreeDeeperThanItsLimitIsWrittenByJackson() {
        ArrayNode deep = Json.mapper().createArrayNode();
        ArrayNode inner = deep;
        for (int i = 0; i < TreeText.MAX_DEPTH + 5; i++) {
            inner = inner.addArray();
        }
        assertThat(TreeText.write(deep)).isEqualTo(Json.write(deep));
    }

    @Test
    void parsesTheEmptyObjectWithoutAParserAndEverythingElseWithOne() {
        assertThat(TreeText.parse("{}")).isEqualTo(Json.object());
        assertThat(TreeText.parse("{\"a\":[1]}")).isEqualTo(Json.parse("{\"a\":[1]}"));
        ObjectNode first = (ObjectNode) TreeText.parse("{}");
        first.put("x", 1);
        assertThat(TreeText.parse("{}")).as("a fresh node each time").isEqualTo(Json.object());
    }
}
