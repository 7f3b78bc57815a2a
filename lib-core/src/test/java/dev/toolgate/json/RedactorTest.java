package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeout;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class RedactorTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final String HEX64 = "0123456789abcdef".repeat(4);

    @Test
    void redactsSensitiveMembersAtAnyDepthAndInsideArrays() {
        JsonNode input = Json.parse("""
                {"user":"bob","password":"hunter2",
                 "auth":{"clientSecret":"s3","nested":[{"apiKey":"k1"},{"ok":1}]},
                 "list":[[{"token":{"a":1}}]]}""");

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.parse("""
                {"user":"bob","password":"[REDACTED]",
                 "auth":{"clientSecret":"[REDACTED]","nested":[{"apiKey":"[REDACTED]"},{"ok":1}]},
                 "list":[[{"token":"[REDACTED]"}]]}"""));
    }

    @Test
    void replacesValuesOfEveryType() {
        JsonNode input = Json.parse("{\"secret\":{\"x\":1},\"token\":[1],\"password\":null,\"apikey\":42,\"cookie\":true}");

        JsonNode redacted = REDACTOR.redact(input);

        redacted.forEach(value -> assertThat(value.stringValue()).isEqualTo(Redactor.REDACTED));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "password", "PASSWORD", "db.password", "passwd", "API_KEY", "X-Api-Key", "api-key", "apiKeyHeader",
        "clientSecret", "client_secret", "Authorization", "Proxy-Authorization", "access_token", "refreshToken",
        "Set-Cookie", "private_key", "privateKey", "credentials", "AWS Secret Access Key"
    })
    void sensitiveKeys(String key) {
        assertThat(REDACTOR.isSensitive(key)).isTrue();
        ObjectNode input = Json.object().put(key, "v");
        assertThat(REDACTOR.redact(input).get(key).stringValue()).isEqualTo(Redactor.REDACTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"user", "sessionId", "session_id", "id", "author", "keyboard", "passage", "name", "key", ""})
    void ordinaryKeys(String key) {
        assertThat(REDACTOR.isSensitive(key)).isFalse();
        ObjectNode input = Json.object().put(key, "v");
        assertThat(REDACTOR.redact(input)).isEqualTo(input);
    }

    @Test
    void neverModifiesTheInputAndSharesNoNodes() {
        JsonNode input = Json.parse("{\"a\":{\"token\":\"t\",\"b\":[1]}}");
        JsonNode original = input.deepCopy();

        JsonNode redacted = REDACTOR.redact(input);
        ((ObjectNode) redacted.get("a")).withArray("b").add(2);

        assertThat(input).isEqualTo(original);
    }

    @Test
    void redactsScalarsAndArraysAsCopies() {
        assertThat(REDACTOR.redact(Json.parse("\"token\""))).isEqualTo(Json.parse("\"token\""));
        assertThat(REDACTOR.redact(Json.parse("[{\"token\":1},2]"))).isEqualTo(Json.parse("[{\"token\":\"[REDACTED]\"},2]"));
    }

    @Test
    void customFragmentsAreNormalized() {
        Redactor redactor = Redactor.ofKeys(List.of("Session-Id", "pin"));

        assertThat(redactor.fragments()).containsExactly("pin", "sessionid");
        assertThat(redactor.isSensitive("sessionId")).isTrue();
        assertThat(redactor.isSensitive("SESSION_ID")).isTrue();
        assertThat(redactor.isSensitive("password")).isFalse();
        assertThat(redactor.redact(Json.parse("{\"session_id\":\"x\",\"user\":\"u\"}")))
                .isEqualTo(Json.parse("{\"session_id\":\"[REDACTED]\",\"user\":\"u\"}"));
    }

    @Test
    void defaultFragmentsAreDocumented() {
        assertThat(REDACTOR.fragments()).containsExactly(
                "apikey", "authorization", "cookie", "credential", "passwd", "password", "privatekey", "secret", "token");
        assertThat(REDACTOR).hasToString("Redactor[apikey, authorization, cookie, credential, passwd, password, "
                + "privatekey, secret, token]");
    }

    @Test
    void refusesFragmentsThatWouldMatchEverything() {
        assertThatThrownBy(() -> Redactor.ofKeys(List.of("token", "-_. ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void fragmentsAreImmutable() {
        assertThatThrownBy(() -> REDACTOR.fragments().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    static List<Arguments> texts() {
        return List.of(
                Arguments.of("login failed: password=hunter2 for user bob", "login failed: password=[REDACTED] for user bob"),
                Arguments.of("password: hunter2", "password: [REDACTED]"),
                Arguments.of("password = hunter2, retry", "password = [REDACTED], retry"),
                Arguments.of("{\"password\":\"hunter2\",\"user\":\"bob\"}", "{\"password\":\"[REDACTED]\",\"user\":\"bob\"}"),
                Arguments.of("{\"password\" : \"a\\\"b, c\", \"user\": 1}", "{\"password\" : \"[REDACTED]\", \"user\": 1}"),
                Arguments.of("{\"token\":12345,\"n\":1}", "{\"token\":[REDACTED],\"n\":1}"),
                Arguments.of("body \"{\\\"api_key\\\":\\\"abc\\\"}\"", "body \"{\\\"api_key\\\":\\\"[REDACTED]\\\"}\""),
                Arguments.of("{'client_secret': 'xyz', 'id': 3}", "{'client_secret': '[REDACTED]', 'id': 3}"),
                Arguments.of("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"),
                Arguments.of("authorization=Basic dXNlcjpwYXNz", "authorization=Basic [REDACTED]"),
                Arguments.of("Authorization: Token abc def\nAccept: */*", "Authorization: [REDACTED]\nAccept: */*"),
                Arguments.of("Proxy-Authorization: Digest username=\"a\", response=\"b\"",
                        "Proxy-Authorization: [REDACTED]"),
                Arguments.of("{\"Authorization\":\"Bearer xyz\",\"a\":1}", "{\"Authorization\":\"[REDACTED]\",\"a\":1}"),
                Arguments.of("sent Bearer eyJhbGci.eyJzdWIi.sig to upstream", "sent Bearer [REDACTED] to upstream"),
                Arguments.of("header Basic dXNlcjpwYXNz rejected", "header Basic [REDACTED] rejected"),
                Arguments.of("basic validation failed", "basic validation failed"),
                Arguments.of("X-Api-Key: abc123", "X-Api-Key: [REDACTED]"),
                Arguments.of("GET https://api.example.com/v1?api_key=abc123&page=2 failed",
                        "GET https://api.example.com/v1?api_key=[REDACTED]&page=2 failed"),
                Arguments.of("Cookie: sid=abc; theme=dark\nnext line", "Cookie: [REDACTED]\nnext line"),
                Arguments.of("invalid propose:3f2a-77.b." + HEX64 + " for call", "invalid [REDACTED] for call"),
                Arguments.of("token=propose:x." + HEX64, "token=[REDACTED]"),
                Arguments.of("propose:x." + HEX64 + "0 is too long", "propose:x." + HEX64 + "0 is too long"),
                Arguments.of("propose: x." + HEX64, "propose: x." + HEX64),
                Arguments.of("token abc", "token abc"),
                Arguments.of("password=", "password="),
                Arguments.of("user=bob id=7 at 12:30", "user=bob id=7 at 12:30"),
                Arguments.of("no secrets here", "no secrets here"),
                Arguments.of("", ""));
    }

    @ParameterizedTest
    @MethodSource("texts")
    void redactsText(String text, String expected) {
        assertThat(REDACTOR.redactText(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @MethodSource("texts")
    void redactingTextTwiceChangesNothingMore(String text, String expected) {
        assertThat(REDACTOR.redactText(expected)).isEqualTo(expected);
    }

    @Test
    void textRedactionUsesTheRedactorsFragments() {
        Redactor redactor = Redactor.ofKeys(List.of("pin"));

        assertThat(redactor.redactText("pin=1234 password=x")).isEqualTo("pin=[REDACTED] password=x");
    }

    @Test
    void nullTextStaysNull() {
        assertThat(REDACTOR.redactText(null)).isNull();
    }

    @Test
    void textRedactionStaysLinearOnHostileInput() {
        String[] inputs = {
            "propose:".repeat(50_000),
            "propose:a.".repeat(50_000),
            "a".repeat(500_000),
            "token=".repeat(50_000),
            "a-".repeat(250_000) + "=",
            "Bearer ".repeat(50_000),
            "\"password\":\"" + "\\\"".repeat(200_000)
        };

        // linear scanning takes well under a second; quadratic backtracking would take hours
        assertTimeout(Duration.ofSeconds(10), () -> {
            for (String input : inputs) {
                REDACTOR.redactText(input);
            }
        });
    }
}
