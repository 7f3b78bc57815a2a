package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.MethodSource;

class SecretShapesTest {

    private static final String R = Redactor.REDACTED;
    private static final String HEX64 = "0123456789abcdef".repeat(4);

    static final List<String> SHAPED = SecretSamples.SHAPED;
    static final List<String> ORDINARY = SecretSamples.ORDINARY;

    @ParameterizedTest
    @FieldSource("SHAPED")
    void aSecretAloneIsReplacedWhole(String secret) {
        assertThat(SecretShapes.redact(secret)).isEqualTo(R);
    }

    @ParameterizedTest
    @FieldSource("SHAPED")
    void aSecretInsideTextIsReplacedAndTheTextKept(String secret) {
        assertThat(SecretShapes.redact("key (" + secret + ") was rejected")).isEqualTo("key (" + R + ") was rejected");
        assertThat(SecretShapes.redact("got " + secret + ", retrying")).isEqualTo("got " + R + ", retrying");
        assertThat(SecretShapes.redact("key=" + secret + "&page=2")).isEqualTo("key=" + R + "&page=2");
    }

    @ParameterizedTest
    @FieldSource("ORDINARY")
    void ordinaryValuesAreKept(String value) {
        assertThat(SecretShapes.redact(value)).isEqualTo(value);
        assertThat(SecretShapes.redact("see " + value + " here")).isEqualTo("see " + value + " here");
    }

    static Stream<Arguments> texts() {
        return Stream.of(
                // HTTP credentials keep their scheme
                Arguments.of("Authorization failed for Bearer abc.def", "Authorization failed for Bearer " + R),
                Arguments.of("BEARER abc123, then", "BEARER " + R + ", then"),
                Arguments.of("header Basic dXNlcjpwYXNz rejected", "header Basic " + R + " rejected"),
                Arguments.of("Bearer Authentication is required", "Bearer Authentication is required"),
                // provider keys by prefix
                Arguments.of("sk-svcacct-Ab3dEf6hIj9lMn2pQr5tUv8x", R),
                Arguments.of("sk-admin-Ab3dEf6hIj9lMn2pQr5tUv8x", R),
                Arguments.of("sk-or-v1-" + HEX64, R),
                Arguments.of("key sk-" + HEX64.substring(0, 32) + " (DeepSeek)", "key " + R + " (DeepSeek)"),
                Arguments.of("gho_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j ghu_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j", R + " " + R),
                Arguments.of("ghs_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j/ghr_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j", R + "/" + R),
                Arguments.of("glpat-Ab3dEf6hIj9lMn2pQr5t", R),
                Arguments.of("xoxp-2400000000-2400000000001-2400000000002-Ab3dEf6hIj9lMn2pQr5tUv8x", R),
                Arguments.of("xoxa-2-Ab3dEf6hIj9lMn2pQr5t xoxr-Ab3dEf6hIj9lMn2pQr5t", R + " " + R),
                Arguments.of("xoxe.xoxp-1-Ab3dEf6hIj9lMn2pQr5t xapp-1-A0123ABCD-2400000000-ab3def", R + " " + R),
                Arguments.of("\"AKIAIOSFODNN7EXAMPLE\"", "\"" + R + "\""),
                Arguments.of("AKIAIOSFODNN7EXAMPLEX", "AKIAIOSFODNN7EXAMPLEX"), // 17 characters after AKIA: not a key id
                Arguments.of("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 ya29.a0Ab3dEf6hIj9lMn2pQr5tUv8x", R + " " + R),
                Arguments.of("sk_test_4eC39HqLyjWDarjtT1zdp7dc rk_test_4eC39HqLyjWDarjtT1zdp7dc", R + " " + R),
                Arguments.of("whsec_Ab3dEf6hIj9lMn2pQr5tUv8xYz1b", R),
                Arguments.of("npm_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j hf_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh", R + " " + R),
                Arguments.of("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", R),
                // not keys
                Arguments.of("sk-" + "a".repeat(30), "sk-" + "a".repeat(30)),
                Arguments.of("mask-Ab3dEf6hIj9lMn2pQr5tUv8xYz", "mask-Ab3dEf6hIj9lMn2pQr5tUv8xYz"),
                Arguments.of("pk_live_4eC39HqLyjWDarjtT1zdp7dc", "pk_live_4eC39HqLyjWDarjtT1zdp7dc"), // publishable
                // URL credentials: the password only
                Arguments.of("postgres://app:hunter2@db.internal:5432/app", "postgres://app:" + R + "@db.internal:5432/app"),
                Arguments.of("DATABASE_URL=postgresql://app:s3cr%40t@db/app?sslmode=require",
                        "DATABASE_URL=postgresql://app:" + R + "@db/app?sslmode=require"),
                Arguments.of("jdbc:mysql://root:toor@localhost/db", "jdbc:mysql://root:" + R + "@localhost/db"),
                Arguments.of("redis://:hunter2@cache:6379/0", "redis://:" + R + "@cache:6379/0"),
                Arguments.of("mongodb+srv://app:p@ss@cluster0.example.net/db", "mongodb+srv://app:" + R + "@cluster0.example.net/db"),
                Arguments.of("amqp://guest:guest@rabbit and http://a:b@c", "amqp://guest:" + R + "@rabbit and http://a:" + R + "@c"),
                Arguments.of("https://user@example.com/x", "https://user@example.com/x"),
                Arguments.of("https://example.com:8443/x?user=a@b", "https://example.com:8443/x?user=a@b"),
                Arguments.of("ftp://anonymous:@ftp.example.com", "ftp://anonymous:@ftp.example.com"),
                // PEM blocks that are not public, whatever their kind
                Arguments.of("key:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\nok", "key:\n" + R + "\nok"),
                Arguments.of("-----BEGIN ENCRYPTED PRIVATE KEY-----\\nMIIE\\n-----END ENCRYPTED PRIVATE KEY-----\\n", R + "\\n"),
                Arguments.of("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", R),
                Arguments.of("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nP2/56w\n---- END SSH2 ENCRYPTED PRIVATE KEY ----", R),
                Arguments.of("-----BEGIN FUTURE THING-----\nAAAA\n-----END FUTURE THING-----", R),
                Arguments.of("truncated -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "truncated " + R),
                Arguments.of("-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"),
                Arguments.of("-----BEGIN CERTIFICATE REQUEST-----\nMIIC\n-----END CERTIFICATE REQUEST-----",
                        "-----BEGIN CERTIFICATE REQUEST-----\nMIIC\n-----END CERTIFICATE REQUEST-----"),
                // Toolgate proposal tokens
                Arguments.of("invalid propose:3f2a-77.b." + HEX64 + " for call", "invalid " + R + " for call"),
                Arguments.of("propose:x." + HEX64 + "0 is too long", "propose:x." + HEX64 + "0 is too long"),
                Arguments.of("propose: x." + HEX64, "propose: x." + HEX64));
    }

    @ParameterizedTest
    @MethodSource("texts")
    void redactsShapesInText(String text, String expected) {
        assertThat(SecretShapes.redact(text)).isEqualTo(expected);
        assertThat(SecretShapes.redact(expected)).as("idempotent").isEqualTo(expected);
    }

    @Test
    void aPrivateBlockCanContinueAcrossLines() {
        assertThat(SecretShapes.redact("-----BEGIN PRIVATE KEY-----", false)).isEqualTo(new SecretShapes.Scan(R, true));
        assertThat(SecretShapes.redact("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", true)).isEqualTo(new SecretShapes.Scan(R, true));
        assertThat(SecretShapes.redact("-----END PRIVATE KEY----- done", true)).isEqualTo(new SecretShapes.Scan(R + " done", false));
        assertThat(SecretShapes.redact("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", false))
                .isEqualTo(new SecretShapes.Scan("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", false));
        assertThat(SecretShapes.redact("-----BEGIN CERTIFICATE-----", false))
                .isEqualTo(new SecretShapes.Scan("-----BEGIN CERTIFICATE-----", false));
    }

    static Stream<Arguments> hostileInputs() {
        int n = 1 << 20;
        return Stream.of(
                "eyJaaaaaaaaaaa.".repeat(n / 15), "eyJ" + "a".repeat(n), "eyJaaaaaaaa" + ".".repeat(n),
                "sk-".repeat(n / 3), "sk-" + "a".repeat(n), "sk-a-".repeat(n / 5), "sk-proj-" + "-".repeat(n),
                "ghp_".repeat(n / 4), "xoxb-".repeat(n / 5), "AKIA".repeat(n / 4), "AIza".repeat(n / 4),
                "a://".repeat(n / 4), "a://b:".repeat(n / 6), "a://" + "b:".repeat(n / 2), "a://b" + "@".repeat(n),
                "a://" + "b".repeat(n) + "@", "a:/".repeat(n / 3),
                "-----BEGIN RSA PRIVATE KEY-----".repeat(n / 31), "-----BEGIN CERTIFICATE-----".repeat(n / 27),
                "-----BEGIN " + "A ".repeat(n / 2), "-".repeat(n), "-----END PRIVATE KEY".repeat(n / 20),
                "Bearer ".repeat(n / 7), "Bearer " + "a".repeat(n), "Basic ".repeat(n / 6), "Basic " + "A".repeat(n),
                "propose:".repeat(n / 8), "propose:a.".repeat(n / 10), "a".repeat(n), "\\".repeat(n))
                .map(Arguments::of);
    }

    @ParameterizedTest
    @MethodSource("hostileInputs")
    void staysLinearOnHostileInput(String input) {
        // linear scanning takes milliseconds; catastrophic backtracking would take hours
        String redacted = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> SecretShapes.redact(input));
        assertThat(redacted).isNotNull();
    }
}
