package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

class RedactorTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final String R = Redactor.REDACTED;
    private static final String HEX64 = "0123456789abcdef".repeat(4);

    @Test
    void redactsSensitiveMembersAtAnyDepthAndInsideArrays() {
        JsonNode input = Json.parse("""
                {"user":"bob","password":"hunter2",
                 "auth":{"clientSecret":"s3","nested":[{"apiKey":"k1"},{"ok":1}]},
                 "list":[[{"token":{"a":1}}]],
                 "usage":{"input_tokens":12,"output_tokens":30,"max_tokens":1024}}""");

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.parse("""
                {"user":"bob","password":"[REDACTED]",
                 "auth":{"clientSecret":"[REDACTED]","nested":[{"apiKey":"[REDACTED]"},{"ok":1}]},
                 "list":[[{"token":"[REDACTED]"}]],
                 "usage":{"input_tokens":12,"output_tokens":30,"max_tokens":1024}}"""));
    }

    @Test
    void replacesValuesOfEveryType() {
        JsonNode input = Json.parse("{\"secret\":{\"x\":1},\"token\":[1],\"password\":null,\"apikey\":42,\"cookie\":true}");

        JsonNode redacted = REDACTOR.redact(input);

        assertThat(redacted.size()).isEqualTo(5);
        redacted.forEach(value -> assertThat(value.stringValue()).isEqualTo(R));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "token", "TOKEN", "access_token", "refresh_token", "id_token", "accessToken", "AccessToken", "refreshToken",
        "session_token", "sessionToken", "auth_token", "x-auth-token", "X-CSRF-Token", "csrftoken", "x-amz-security-token",
        "oauth_token", "oauth2Token", "access_tokens", "refreshTokens", "bearer", "bearer_token",
        "x-api-key", "X-Api-Key", "XApiKey", "apiKey", "APIKey", "api_key", "API_KEY", "api-key", "apikey",
        "apiKeyHeader", "OPENAI_API_KEY", "x-goog-api-key", "api_keys",
        "client_secret", "clientSecret", "secret", "secrets", "webhook_secret", "JWT_SECRET", "secretKey",
        "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "AWS Secret Access Key", "SecretAccessKey", "aws_access_key_id",
        "accessKey", "password", "PASSWORD", "Password", "db.password", "spring.datasource.password", "dbPassword",
        "adminpassword", "passwords", "passwd", "PGPASSWORD", "pwd", "db_pwd", "passphrase", "passcode", "otp",
        "Authorization", "authorization", "Proxy-Authorization", "cookie", "Cookie", "set-cookie", "Set-Cookie", "cookies",
        "private_key", "privateKey", "private_key_id", "PrivateKeyPem", "signing_key", "encryptionKey", "master_key",
        "sessionKey", "AccountKey", "client_key",
        "credential", "credentials", "Credentials", "GOOGLE_APPLICATION_CREDENTIALS", "creds", "token_id", "password_hash"
    })
    void sensitiveKeys(String key) {
        assertThat(REDACTOR.isSensitive(key)).as(key).isTrue();
        ObjectNode input = Json.object().put(key, "v");
        assertThat(REDACTOR.redact(input).get(key).stringValue()).isEqualTo(R);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "tokens", "max_tokens", "maxTokens", "max_completion_tokens", "input_tokens", "output_tokens", "total_tokens",
        "prompt_tokens", "completion_tokens", "cached_tokens", "inputTokens", "token_count", "tokenCount",
        "token_limit", "token_usage", "token_type", "tokenizer", "tokenize", "TOKENIZERS_PARALLELISM",
        "expires_in", "password_expires_at", "passwordless", "user", "username", "sessionId", "session_id", "id",
        "author", "authored", "keyboard", "passage", "passport", "bypass", "compass", "name", "key", "keys",
        "primary_key", "sort_key", "public_key", "idempotency_key", "monkey", "secretary", "note", "__proto__", ""
    })
    void ordinaryKeys(String key) {
        assertThat(REDACTOR.isSensitive(key)).as(key).isFalse();
        ObjectNode input = Json.object().put(key, "v");
        assertThat(REDACTOR.redact(input)).isEqualTo(input);
    }

    @Test
    void neverModifiesTheInputAndSharesNoContainers() {
        JsonNode input = Json.parse("{\"a\":{\"token\":\"t\",\"b\":[1],\"note\":\"ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j\"}}");
        JsonNode original = input.deepCopy();

        JsonNode redacted = REDACTOR.redact(input);
        ((ObjectNode) redacted.get("a")).withArray("b").add(2);
        ((ObjectNode) redacted.get("a")).put("c", 3);

        assertThat(input).isEqualTo(original);
    }

    @Test
    void redactsScalarsAndArraysAsCopies() {
        assertThat(REDACTOR.redact(Json.parse("\"token\""))).isEqualTo(Json.parse("\"token\""));
        assertThat(REDACTOR.redact(Json.parse("\"" + SecretSamples.JWT + "\""))).isEqualTo(Json.parse("\"[REDACTED]\""));
        assertThat(REDACTOR.redact(Json.parse("[{\"token\":1},2]"))).isEqualTo(Json.parse("[{\"token\":\"[REDACTED]\"},2]"));
        assertThat(REDACTOR.redact(Json.parse("7"))).isEqualTo(Json.parse("7"));
    }

    @Test
    void redactsSecretShapedValuesUnderHarmlessKeys() {
        JsonNode input = Json.object()
                .put("note", SecretSamples.GITHUB_PAT)
                .put("log", "Authorization failed for Bearer abc.def")
                .put("url", "postgres://app:hunter2@db/app")
                .put("id", "123e4567-e89b-12d3-a456-426614174000")
                .set("lines", Json.toTree(List.of("ok", SecretSamples.AWS_ACCESS_KEY_ID, "key " + SecretSamples.JWT)));

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.object()
                .put("note", R)
                .put("log", "Authorization failed for Bearer " + R)
                .put("url", "postgres://app:" + R + "@db/app")
                .put("id", "123e4567-e89b-12d3-a456-426614174000")
                .set("lines", Json.toTree(List.of("ok", R, "key " + R))));
    }

    @Test
    void redactsAPrivateKeySplitIntoLines() {
        JsonNode input = Json.toTree(Map.of("lines", List.of("x", "-----BEGIN PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
                "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "-----END PRIVATE KEY-----", "y")));

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.toTree(Map.of("lines", List.of("x", R, R, R, R, "y"))));
    }

    @Test
    void redactsJsonInsideStringsAsATree() {
        JsonNode input = Json.object()
                .put("body", "{\"user\":\"bob\",\"credentials\":{\"user\":\"bob\",\"pass\":\"hunter2\"},\"n\":1}")
                .put("plain", "{ \"user\" : \"bob\" }")
                .put("list", "[1, 2]");

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.object()
                .put("body", "{\"user\":\"bob\",\"credentials\":\"[REDACTED]\",\"n\":1}")
                .put("plain", "{ \"user\" : \"bob\" }") // nothing to redact: kept as written
                .put("list", "[1, 2]"));
    }

    @Test
    void jsonInsideStringsWithDuplicateKeysIsRedactedAsText() {
        // a tree would keep only the last member and so hide the first one from redaction
        ObjectNode input = Json.object().put("body", "{\"note\":\"" + SecretSamples.STRIPE_LIVE + "\",\"note\":\"hi\"}");

        assertThat(REDACTOR.redact(input).get("body").stringValue()).isEqualTo("{\"note\":\"[REDACTED]\",\"note\":\"hi\"}");
    }

    @Test
    void secretShapedKeysAreRedactedAndNumberedWhenTheyCollide() {
        ObjectNode input = Json.object()
                .put(SecretSamples.GITHUB_PAT, "scopes: repo")
                .put(SecretSamples.OPENAI_LEGACY, 2)
                .put("[REDACTED]", 3)
                .put("ok", 4);

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.object()
                .put("[REDACTED]", "scopes: repo")
                .put("[REDACTED]#2", 2)
                .put("[REDACTED]#3", 3)
                .put("ok", 4));
    }

    @Test
    void redactsWhatAPojoNodeWouldWrite() {
        ObjectNode input = Json.object();
        input.putPOJO("config", Map.of("password", "hunter2", "host", "db"));
        input.putRawValue("raw", new RawValue("{\"token\":\"abc\",\"n\":1}"));

        JsonNode redacted = REDACTOR.redact(input);

        assertThat(redacted.get("config")).isEqualTo(Json.parse("{\"password\":\"[REDACTED]\",\"host\":\"db\"}"));
        assertThat(redacted.get("raw")).isEqualTo(Json.parse("{\"token\":\"[REDACTED]\",\"n\":1}"));
        assertThat(Json.write(redacted)).doesNotContain("hunter2", "abc");
    }

    @Test
    void failsClosedWhenAValueCannotBeRead() {
        ObjectNode input = Json.object().put("before", 1);
        input.putPOJO("broken", new Unserializable());
        input.putRawValue("raw", new RawValue("password=hunter2 is not JSON"));
        input.put("after", 2);

        assertThat(REDACTOR.redact(input)).isEqualTo(Json.object().put("before", 1).put("broken", R).put("raw", R).put("after", 2));
    }

    /** A value whose serialization fails with the secret in the message. */
    static final class Unserializable {
        public String getValue() {
            throw new IllegalStateException("hunter2");
        }
    }

    @Test
    void customTermsAreWords() {
        Redactor redactor = Redactor.ofKeys(List.of("Session-Id", "pin"));

        assertThat(redactor.terms()).containsExactly("pin", "session id");
        assertThat(redactor.isSensitive("sessionId")).isTrue();
        assertThat(redactor.isSensitive("SESSION_ID")).isTrue();
        assertThat(redactor.isSensitive("x-session-id")).isTrue();
        assertThat(redactor.isSensitive("pin")).isTrue();
        assertThat(redactor.isSensitive("card_pin")).isTrue();
        assertThat(redactor.isSensitive("pinned")).isFalse();
        assertThat(redactor.isSensitive("password")).isFalse();
        assertThat(redactor.redact(Json.parse("{\"session_id\":\"x\",\"user\":\"u\",\"pin\":1234}")))
                .isEqualTo(Json.parse("{\"session_id\":\"[REDACTED]\",\"user\":\"u\",\"pin\":\"[REDACTED]\"}"));
        // values are still redacted by their shape
        assertThat(redactor.redactText("got " + SecretSamples.JWT)).isEqualTo("got " + R);
    }

    @Test
    void hostsAddTermsToTheDefaults() {
        Redactor redactor = Redactor.defaults().withKeys("session_id", "pin");

        assertThat(redactor.isSensitive("sessionId")).isTrue();
        assertThat(redactor.isSensitive("password")).isTrue();
        assertThat(redactor.isSensitive("max_tokens")).isFalse();
        assertThat(redactor.terms()).containsAll(Redactor.defaults().terms()).contains("session id", "pin");
        assertThat(Redactor.defaults().isSensitive("sessionId")).as("the defaults are unchanged").isFalse();
        assertThat(Redactor.defaults().withKeys(List.of("apiKey")).terms()).isEqualTo(Redactor.defaults().terms());
    }

    @Test
    void defaultTermsAreDocumented() {
        assertThat(REDACTOR.terms()).containsExactly(
                "access key", "access keys", "access tokens", "account key", "api key", "api keys", "api tokens",
                "auth tokens", "authorization", "bearer", "bearer tokens", "client key", "cookie", "cookies", "credential",
                "credentials", "creds", "encryption key", "id tokens", "master key", "otp", "passcode", "passphrase",
                "passwd", "password", "passwords", "private key", "private keys", "pwd", "refresh tokens", "secret",
                "secrets", "session key", "session tokens", "signing key", "token");
        assertThat(REDACTOR.toString()).startsWith("Redactor[access key, access keys, ");
    }

    @SuppressWarnings("deprecation")
    @Test
    void fragmentsAreTheTerms() {
        assertThat(REDACTOR.fragments()).isEqualTo(REDACTOR.terms());
    }

    @Test
    void refusesTermsThatWouldMatchNothing() {
        assertThatThrownBy(() -> Redactor.ofKeys(List.of("token", "-_. ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no letter or digit");
        assertThatThrownBy(() -> Redactor.defaults().withKeys("\u200b"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void termsAreImmutable() {
        assertThatThrownBy(() -> REDACTOR.terms().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    static List<Arguments> texts() {
        return List.of(
                Arguments.of("login failed: password=hunter2 for user bob", "login failed: password=[REDACTED] for user bob"),
                Arguments.of("password: hunter2", "password: [REDACTED]"),
                Arguments.of("password = hunter2, retry", "password = [REDACTED], retry"),
                Arguments.of("{\"password\":\"hunter2\",\"user\":\"bob\"}", "{\"password\":\"[REDACTED]\",\"user\":\"bob\"}"),
                Arguments.of("{\"password\" : \"a\\\"b, c\", \"user\": 1}", "{\"password\" : \"[REDACTED]\", \"user\": 1}"),
                Arguments.of("{\"password\":\"a\\\\\",\"user\":1}", "{\"password\":\"[REDACTED]\",\"user\":1}"),
                Arguments.of("{\"token\":12345,\"n\":1}", "{\"token\":[REDACTED],\"n\":1}"),
                Arguments.of("{\"token_count\":5,\"access_token\":\"abc\"}", "{\"token_count\":5,\"access_token\":\"[REDACTED]\"}"),
                Arguments.of("body \"{\\\"api_key\\\":\\\"abc\\\"}\"", "body \"{\\\"api_key\\\":\\\"[REDACTED]\\\"}\""),
                Arguments.of("{'client_secret': 'xyz', 'id': 3}", "{'client_secret': '[REDACTED]', 'id': 3}"),
                Arguments.of("credentials: {\"user\":\"a\",\"pass\":\"x}\"} next", "credentials: [REDACTED] next"),
                Arguments.of("secrets=[\"a\", [\"b\"]], ok", "secrets=[REDACTED], ok"),
                Arguments.of("password: [never closed", "password: [REDACTED]"),
                Arguments.of("password: \"never closed", "password: \"[REDACTED]"),
                Arguments.of("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer [REDACTED]"),
                Arguments.of("authorization=Basic dXNlcjpwYXNz", "authorization=Basic [REDACTED]"),
                Arguments.of("Authorization: Token abc def\nAccept: */*", "Authorization: [REDACTED]\nAccept: */*"),
                Arguments.of("Proxy-Authorization: Digest username=\"a\", response=\"b\"",
                        "Proxy-Authorization: [REDACTED]"),
                Arguments.of("{\"Authorization\":\"Bearer xyz\",\"a\":1}", "{\"Authorization\":\"[REDACTED]\",\"a\":1}"),
                Arguments.of("sent Bearer eyJhbGci.eyJzdWIi.sig to upstream", "sent Bearer [REDACTED] to upstream"),
                Arguments.of("Authorization failed for Bearer abc.def", "Authorization failed for Bearer [REDACTED]"),
                Arguments.of("header Basic dXNlcjpwYXNz rejected", "header Basic [REDACTED] rejected"),
                Arguments.of("basic validation failed", "basic validation failed"),
                Arguments.of("X-Api-Key: abc123", "X-Api-Key: [REDACTED]"),
                Arguments.of("GET https://api.example.com/v1?api_key=abc123&page=2 failed",
                        "GET https://api.example.com/v1?api_key=[REDACTED]&page=2 failed"),
                Arguments.of("Cookie: sid=abc; theme=dark\nnext line", "Cookie: [REDACTED]\nnext line"),
                Arguments.of("Set-Cookie: sid=abc; Path=/; HttpOnly\r\nVary: *", "Set-Cookie: [REDACTED]\r\nVary: *"),
                Arguments.of("invalid api key: abc123", "invalid api key: [REDACTED]"),
                Arguments.of("The AWS Secret Access Key: wJalrXUtnFEMI/K7MDENG", "The AWS Secret Access Key: [REDACTED]"),
                Arguments.of("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                        "aws_secret_access_key = [REDACTED]"),
                Arguments.of("Server=db;User Id=sa;Password=p@ss;Encrypt=true", "Server=db;User Id=sa;Password=[REDACTED];Encrypt=true"),
                Arguments.of("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=abc+/d==;EndpointSuffix=core.windows.net",
                        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED];EndpointSuffix=core.windows.net"),
                Arguments.of("p\u0430ssword=hunter2", "p\u0430ssword=[REDACTED]"),
                Arguments.of("pass\u200bword=hunter2", "pass\u200bword=[REDACTED]"),
                Arguments.of("connecting to postgres://app:hunter2@db:5432/app", "connecting to postgres://app:[REDACTED]@db:5432/app"),
                Arguments.of("key " + SecretSamples.OPENAI_PROJECT + " is invalid", "key [REDACTED] is invalid"),
                Arguments.of("invalid propose:3f2a-77.b." + HEX64 + " for call", "invalid [REDACTED] for call"),
                Arguments.of("token=propose:x." + HEX64, "token=[REDACTED]"),
                Arguments.of("propose:x." + HEX64 + "0 is too long", "propose:x." + HEX64 + "0 is too long"),
                Arguments.of("propose: x." + HEX64, "propose: x." + HEX64),
                Arguments.of("token abc", "token abc"),
                Arguments.of("password=", "password="),
                Arguments.of("max_tokens=1024 exceeded, token count: 5, tokenizer: cl100k", "max_tokens=1024 exceeded, token count: 5, tokenizer: cl100k"),
                Arguments.of("api key rotation: weekly", "api key rotation: weekly"),
                Arguments.of("user=bob id=7 at 12:30", "user=bob id=7 at 12:30"),
                Arguments.of("request 123e4567-e89b-12d3-a456-426614174000 at 2024-05-01T12:30:45Z, hash " + HEX64,
                        "request 123e4567-e89b-12d3-a456-426614174000 at 2024-05-01T12:30:45Z, hash " + HEX64),
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
    void redactsJsonEscapedAnyNumberOfTimes() {
        String json = "{\"password\":\"hunter2\\\"tail\",\"user\":\"bob\"}";
        for (int level = 0; level < 4; level++) {
            String redacted = REDACTOR.redactText("body: " + json + " end");

            assertThat(redacted).as("escaped %d times", level).doesNotContain("hunter2").doesNotContain("tail")
                    .contains("bob").endsWith(" end");
            json = Json.write(JsonNodeFactory.instance.stringNode(json));
        }
    }

    @Test
    void textRedactionUsesTheRedactorsTerms() {
        Redactor redactor = Redactor.ofKeys(List.of("pin"));

        assertThat(redactor.redactText("pin=1234 password=x")).isEqualTo("pin=[REDACTED] password=x");
    }

    @Test
    void nullTextStaysNull() {
        assertThat(REDACTOR.redactText(null)).isNull();
    }

    @Test
    void textRedactionStaysLinearOnHostileInput() {
        int n = 1 << 20;
        String[] inputs = {
            "propose:".repeat(n / 8),
            "propose:a.".repeat(n / 10),
            "a".repeat(n),
            "token=".repeat(n / 6),
            "a-".repeat(n / 2) + "=",
            "Bearer ".repeat(n / 7),
            "\"password\":\"" + "\\\"".repeat(n / 2),
            "\"password\":" + "\\".repeat(n) + "\"",
            "password: " + "{[".repeat(n / 2),
            "password: " + "\"".repeat(n),
            "a ".repeat(n / 2) + ":",
            "api key: ".repeat(n / 9),
            "password" + "\u200b".repeat(n) + "=x",
            "\u0430".repeat(n) + "=x",
            "x" + "=".repeat(n)
        };

        // linear scanning takes well under a second; quadratic backtracking would take hours
        for (String input : inputs) {
            String redacted = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> REDACTOR.redactText(input));
            assertThat(redacted).isNotNull();
        }
    }

    @Test
    void longKeysAreMatchedInLinearTime() {
        String key = "a_".repeat(1 << 19) + "password";

        boolean sensitive = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> REDACTOR.isSensitive(key));

        assertThat(sensitive).isTrue();
    }

    private static final String SECRET_KEY = "ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j";

    @Test
    void aRememberedKeyVerdictRedactsExactlyAsAFreshOneAndTheMemoryIsBounded() {
        Redactor redactor = Redactor.defaults().withKeys("pin");
        ObjectNode tree = JsonNodeFactory.instance.objectNode();
        tree.put("pin", "1234").put("count", 3).put("note", "fine");
        tree.put(SECRET_KEY, "a map keyed by a token");
        tree.putObject("nested").put("apiKey", "k-1").put("pin", 7);
        JsonNode first = redactor.redact(tree);
        JsonNode again = redactor.redact(tree); // every key's verdict now remembered
        assertThat(again).isEqualTo(first);
        assertThat(first.get("pin").asString()).isEqualTo(Redactor.REDACTED);
        assertThat(first.get("nested").get("apiKey").asString()).isEqualTo(Redactor.REDACTED);
        assertThat(first.get("nested").get("pin").asString()).isEqualTo(Redactor.REDACTED);
        assertThat(first.get("count").asInt()).isEqualTo(3);
        assertThat(first.has(SECRET_KEY)).as("a secret-shaped key is itself redacted").isFalse();
        assertThat(Redactor.defaults().redact(tree).get("pin").asString())
                .as("another redactor's terms are its own").isEqualTo("1234");

        // many distinct keys, then long ones: the memory stops growing, and verdicts stay right
        for (int i = 0; i < 3_000; i++) {
            ObjectNode one = JsonNodeFactory.instance.objectNode().put("field" + i, i);
            assertThat(redactor.redact(one).get("field" + i).asInt()).isEqualTo(i);
        }
        assertThat(redactor.rememberedKeys()).isEqualTo(1024);
        ObjectNode late = JsonNodeFactory.instance.objectNode().put("late password", "hunter2").put("x".repeat(65), "v");
        JsonNode lateRedacted = redactor.redact(late);
        assertThat(lateRedacted.get("late password").asString()).isEqualTo(Redactor.REDACTED);
        assertThat(lateRedacted.get("x".repeat(65)).asString()).isEqualTo("v");
        assertThat(redactor.rememberedKeys()).isEqualTo(1024);
    }
}
