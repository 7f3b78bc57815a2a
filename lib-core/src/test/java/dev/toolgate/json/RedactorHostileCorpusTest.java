package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Inputs written by someone who wants a secret to reach the audit trail, and what the redactor makes of
 * them. Each row documents a decision; the few rows that show a limit say so.
 */
class RedactorHostileCorpusTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String R = Redactor.REDACTED;

    static Stream<Arguments> corpus() {
        return Stream.of(
                // look-alike keys are read as the Latin word (see KeyWords)
                row("Cyrillic a in password", obj("p\u0430ssword", "hunter2"), obj("p\u0430ssword", R)),
                row("Cyrillic P, A in PASSWORD", obj("\u0420\u0410SSWORD", "hunter2"), obj("\u0420\u0410SSWORD", R)),
                row("Cyrillic dze in password", obj("pa\u0455sword", "hunter2"), obj("pa\u0455sword", R)),
                row("Greek omicron in token", obj("t\u03bfken", "abc"), obj("t\u03bfken", R)),
                row("fullwidth letters", obj("\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24", "x"),
                        obj("\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24", R)),
                row("accented letters", obj("p\u00e1ssw\u00f6rd", "x"), obj("p\u00e1ssw\u00f6rd", R)),
                row("combining accent", obj("pa\u0301ssword", "x"), obj("pa\u0301ssword", R)),
                // invisible and separating characters inside a key
                row("zero-width space", obj("pass\u200bword", "x"), obj("pass\u200bword", R)),
                row("zero-width joiner in api key", obj("api\u200d_key", "x"), obj("api\u200d_key", R)),
                row("soft hyphen in secret", obj("se\u00adcret", "x"), obj("se\u00adcret", R)),
                row("byte order mark before token", obj("\ufefftoken", "x"), obj("\ufefftoken", R)),
                row("Hangul filler in password", obj("pass\u3164word", "x"), obj("pass\u3164word", R)),
                row("spelled with separators", obj("p-a-s-s-w-o-r-d", "x"), obj("p-a-s-s-w-o-r-d", R)),
                row("newline inside the key", obj("pass\nword", "x"), obj("pass\nword", R)),
                row("trailing spaces", obj("password   ", "x"), obj("password   ", R)),
                row("surrounding tabs and newlines", obj("\t client_secret \n", "x"), obj("\t client_secret \n", R)),
                row("alternating case", obj("PaSsWoRd", "x"), obj("PaSsWoRd", R)),
                row("inverted alternating case", obj("pAsSwOrD", "x"), obj("pAsSwOrD", R)),
                row("NUL inside the key", obj("pass\u0000word", "x"), obj("pass\u0000word", R)),
                // prototype-pollution keys mean nothing here: kept, and their members redacted as usual
                row("__proto__", json("{\"__proto__\":{\"password\":\"x\",\"isAdmin\":true}}"),
                        json("{\"__proto__\":{\"password\":\"[REDACTED]\",\"isAdmin\":true}}")),
                row("constructor.prototype", json("{\"constructor\":{\"prototype\":{\"token\":\"x\"}}}"),
                        json("{\"constructor\":{\"prototype\":{\"token\":\"[REDACTED]\"}}}")),
                // look-alike keys that are not secrets stay visible
                row("counters", json("{\"max_tokens\":1,\"tokenizer\":\"cl100k\",\"token_count\":3,\"tokens\":4}"),
                        json("{\"max_tokens\":1,\"tokenizer\":\"cl100k\",\"token_count\":3,\"tokens\":4}")),
                // numbers: redacted by key, whatever their type; never by shape
                row("numeric password", json("{\"password\":1234,\"otp\":123456}"),
                        json("{\"password\":\"[REDACTED]\",\"otp\":\"[REDACTED]\"}")),
                row("pin is not a default term", json("{\"pin\":1234,\"gpio\":{\"pin\":13}}"),
                        json("{\"pin\":1234,\"gpio\":{\"pin\":13}}")),
                row("card-like number under a harmless key", json("{\"n\":4111111111111111}"), json("{\"n\":4111111111111111}")),
                // secrets under harmless keys, inside arrays and longer text
                row("token in an array in an array", json("[[[\"" + SecretSamples.GITHUB_PAT + "\"]]]"), json("[[[\"[REDACTED]\"]]]")),
                row("secret in prose", obj("note", "use " + SecretSamples.OPENAI_LEGACY + " for prod"), obj("note", "use " + R + " for prod")),
                row("secret as a key", obj(SecretSamples.AWS_ACCESS_KEY_ID, "prod"), obj(R, "prod")),
                row("already [REDACTED]", obj("note", R), obj("note", R)),
                row("sensitive key with empty value", obj("password", ""), obj("password", R)),
                // JSON inside strings, once or twice escaped
                row("JSON in a string", obj("body", "{\"password\":\"hunter2\"}"), obj("body", "{\"password\":\"[REDACTED]\"}")),
                row("JSON in a string in a string", obj("body", "\"{\\\"token\\\":\\\"abc\\\"}\""),
                        obj("body", "\"{\\\"token\\\":\\\"[REDACTED]\\\"}\"")),
                row("JSON in a log line", obj("log", "sent {\"api_key\":\"abc\",\"q\":1} to upstream"),
                        obj("log", "sent {\"api_key\":\"[REDACTED]\",\"q\":1} to upstream")),
                row("array of JSON strings", json("[\"{\\\"secret\\\":1}\",\"{\\\"ok\\\":1}\"]"),
                        json("[\"{\\\"secret\\\":\\\"[REDACTED]\\\"}\",\"{\\\"ok\\\":1}\"]")),
                // secrets split across array elements
                row("PEM split into lines", json("[\"-----BEGIN RSA PRIVATE KEY-----\",\"MIIEowIBAAKCAQEA\",\"-----END RSA PRIVATE KEY-----\",\"ok\"]"),
                        json("[\"[REDACTED]\",\"[REDACTED]\",\"[REDACTED]\",\"ok\"]")),
                row("array under a sensitive key", json("{\"api_key\":[\"sk-\",\"Ab3dEf6hIj9lMn2pQr5t\"]}"), json("{\"api_key\":\"[REDACTED]\"}")),
                // LIMIT: pieces that do not each look like a secret are not recognized
                row("LIMIT: key split into harmless-looking pieces", json("{\"parts\":[\"sk-proj-\",\"Ab3dEf6hIj9lMn2pQr5t\"]}"),
                        json("{\"parts\":[\"sk-proj-\",\"Ab3dEf6hIj9lMn2pQr5t\"]}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void redactsTheHostileCorpus(String description, JsonNode input, JsonNode expected) {
        JsonNode original = input.deepCopy();

        JsonNode redacted = REDACTOR.redact(input);

        assertThat(redacted).isEqualTo(expected);
        assertThat(REDACTOR.redact(redacted)).as("idempotent").isEqualTo(expected);
        assertThat(input).as("input unchanged").isEqualTo(original);
    }

    @Test
    void survivesObjectsNestedAHundredThousandLevelsDeep() {
        int depth = 100_000;
        ObjectNode root = NODES.objectNode();
        ObjectNode node = root;
        for (int i = 0; i < depth; i++) {
            node.put("note", i == depth - 1 ? SecretSamples.JWT : "level " + i);
            node = node.putObject("child");
        }
        node.put("password", "hunter2");

        JsonNode redacted = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> REDACTOR.redact(root));

        JsonNode at = redacted;
        for (int i = 0; i < depth; i++) {
            assertThat(at.get("note").stringValue()).isEqualTo(i == depth - 1 ? R : "level " + i);
            at = at.get("child");
        }
        assertThat(at.get("password").stringValue()).isEqualTo(R);
    }

    @Test
    void survivesArraysNestedAHundredThousandLevelsDeep() {
        int depth = 100_000;
        ArrayNode root = NODES.arrayNode();
        ArrayNode node = root;
        for (int i = 0; i < depth; i++) {
            node = node.addArray();
        }
        node.add(SecretSamples.GITHUB_PAT).addObject().put("token", "abc");

        JsonNode redacted = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> REDACTOR.redact(root));

        JsonNode at = redacted;
        for (int i = 0; i < depth; i++) {
            assertThat(at.size()).isEqualTo(1);
            at = at.get(0);
        }
        assertThat(at.get(0).stringValue()).isEqualTo(R);
        assertThat(at.get(1).get("token").stringValue()).isEqualTo(R);
        assertThat(root.size()).as("input unchanged").isEqualTo(1);
        assertThat(node.get(0).stringValue()).as("input unchanged").isEqualTo(SecretSamples.GITHUB_PAT);
    }

    @Test
    void redactsHugeArraysAndObjects() {
        ArrayNode array = NODES.arrayNode();
        JsonNode harmless = NODES.stringNode("item");
        JsonNode secret = NODES.stringNode(SecretSamples.SLACK_BOT);
        for (int i = 0; i < 1_000_000; i++) {
            array.add(i % 1000 == 999 ? secret : harmless);
        }
        ObjectNode object = NODES.objectNode();
        for (int i = 0; i < 100_000; i++) {
            object.put(i % 1000 == 999 ? "token_" + i : "field_" + i, i);
        }

        JsonNode redactedArray = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> REDACTOR.redact(array));
        JsonNode redactedObject = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> REDACTOR.redact(object));

        assertThat(redactedArray.size()).isEqualTo(1_000_000);
        int wrong = 0;
        for (int i = 0; i < 1_000_000; i++) {
            wrong += redactedArray.get(i).stringValue().equals(i % 1000 == 999 ? R : "item") ? 0 : 1;
        }
        assertThat(wrong).as("elements redacted wrongly").isZero();
        assertThat(redactedObject.size()).isEqualTo(100_000);
        Iterator<Map.Entry<String, JsonNode>> members = redactedObject.properties().iterator();
        for (int i = 0; i < 100_000; i++) {
            Map.Entry<String, JsonNode> member = members.next();
            boolean sensitive = i % 1000 == 999;
            assertThat(member.getKey()).isEqualTo((sensitive ? "token_" : "field_") + i);
            assertThat(member.getValue()).isEqualTo(sensitive ? NODES.stringNode(R) : NODES.numberNode(i));
        }
    }

    @Test
    void aMegabyteStringWithASecretAtTheEnd() {
        String prose = "lorem ipsum, ".repeat(80_000);
        ObjectNode input = NODES.objectNode().put("text", prose + SecretSamples.ANTHROPIC);

        JsonNode redacted = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> REDACTOR.redact(input));

        assertThat(redacted.get("text").stringValue()).isEqualTo(prose + R);
    }

    @Test
    void failsClosedWhenTheTreeCannotBeWalked() {
        ObjectNode broken = new ObjectNode(NODES) {
            @Override
            public Set<Map.Entry<String, JsonNode>> properties() {
                throw new IllegalStateException("cannot list members");
            }
        };
        ObjectNode input = NODES.objectNode().put("password", "hunter2").put("note", "visible");
        input.set("broken", broken);

        assertThat(REDACTOR.redact(input)).isEqualTo(NODES.stringNode(R));
        assertThat(REDACTOR.redact(broken)).isEqualTo(NODES.stringNode(R));
    }

    @Test
    void redactionIsBoundedForJsonNestedInStrings() {
        // each level is a JSON string holding the next; parsing stops after a few levels and the text rules take over
        String value = "{\"password\":\"hunter2\"}";
        for (int level = 0; level < 12; level++) {
            value = "[" + Json.write(NODES.stringNode(value)) + "]";
        }
        String nested = value;

        JsonNode redacted = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> REDACTOR.redact(NODES.objectNode().put("v", nested)));

        assertThat(Json.write(redacted)).doesNotContain("hunter2");
    }

    private static Arguments row(String description, JsonNode input, JsonNode expected) {
        return Arguments.of(description, input, expected);
    }

    private static ObjectNode obj(String key, String value) {
        return NODES.objectNode().put(key, value);
    }

    private static JsonNode json(String text) {
        return Json.parse(text);
    }
}
