package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KeyWordsTest {

    static Stream<Arguments> splits() {
        return Stream.of(
                Arguments.of("password", List.of("password")),
                Arguments.of("accessToken", List.of("access", "token")),
                Arguments.of("AccessToken", List.of("access", "token")),
                Arguments.of("access_token", List.of("access", "token")),
                Arguments.of("x-api-key", List.of("x", "api", "key")),
                Arguments.of("XApiKey", List.of("x", "api", "key")),
                Arguments.of("APIKey", List.of("api", "key")),
                Arguments.of("API_KEY", List.of("api", "key")),
                Arguments.of("db.password", List.of("db", "password")),
                Arguments.of("AWS Secret Access Key", List.of("aws", "secret", "access", "key")),
                Arguments.of("oauth2Token", List.of("oauth", "2", "token")),
                Arguments.of("OAuth2Token", List.of("o", "auth", "2", "token")),
                Arguments.of("max_tokens", List.of("max", "tokens")),
                Arguments.of("tokenizer", List.of("tokenizer")),
                Arguments.of("maxOutputTokens", List.of("max", "output", "tokens")),
                Arguments.of("HTTPHeaders", List.of("http", "headers")),
                Arguments.of("v2Secret", List.of("v", "2", "secret")),
                Arguments.of("  password \t", List.of("password")),
                Arguments.of("__proto__", List.of("proto")),
                Arguments.of("", List.of()),
                Arguments.of("-_. ", List.of()),
                // look-alikes read as the Latin word
                Arguments.of("p\u0430ssword", List.of("password")), // Cyrillic a
                Arguments.of("\u0420\u0410SSWORD", List.of("password")), // Cyrillic P and A
                Arguments.of("t\u03bfken", List.of("token")), // Greek omicron
                Arguments.of("pass\u200bword", List.of("password")), // zero-width space
                Arguments.of("pass\u200dword", List.of("password")), // zero-width joiner
                Arguments.of("pass\u00adword", List.of("password")), // soft hyphen
                Arguments.of("\ufeffpassword", List.of("password")), // byte order mark
                Arguments.of("pass\u3164word", List.of("password")), // Hangul filler
                Arguments.of("\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44", List.of("password")), // fullwidth
                Arguments.of("\ud835\udc29\ud835\udc1a\ud835\udc2c\ud835\udc2c\ud835\udc30\ud835\udc28\ud835\udc2b\ud835\udc1d",
                        List.of("password")), // mathematical bold
                Arguments.of("p\u00e1ssw\u00f6rd", List.of("password")), // accents
                Arguments.of("pa\u0301ssword", List.of("password")), // combining accent
                // a Russian key keeps its own letters: look-alikes are folded, the word is not translated
                Arguments.of("\u043f\u0430\u0440\u043e\u043b\u044c", List.of("\u043fapo\u043b\u044c")));
    }

    @ParameterizedTest
    @MethodSource("splits")
    void splitsKeysIntoFoldedLowercaseWords(String key, List<String> words) {
        assertThat(KeyWords.split(key).list()).isEqualTo(words);
    }

    @Test
    void termsAreComparedWithoutSeparators() {
        assertThat(KeyWords.term("api key")).isEqualTo("apikey");
        assertThat(KeyWords.term("API_Key")).isEqualTo("apikey");
        assertThat(KeyWords.term("-")).isEmpty();
        assertThat(KeyWords.displayTerm("XApiKey")).isEqualTo("x api key");
    }

    @Test
    void aTermMatchesWholeWordsAndMayEndALongerWord() {
        List<String> terms = List.of("token", "apikey");

        assertThat(contains("token", terms)).isTrue();
        assertThat(contains("access_token", terms)).isTrue();
        assertThat(contains("accesstoken", terms)).isTrue(); // the term ends the word
        assertThat(contains("token2", terms)).isTrue();
        assertThat(contains("x-api-key", terms)).isTrue(); // across word boundaries
        assertThat(contains("xapikey", terms)).isTrue();
        assertThat(contains("apiKeyHeader", terms)).isTrue();

        assertThat(contains("tokens", terms)).isFalse();
        assertThat(contains("max_tokens", terms)).isFalse();
        assertThat(contains("tokenizer", terms)).isFalse();
        assertThat(contains("api", terms)).isFalse();
        assertThat(contains("apikeys", terms)).isFalse();
        assertThat(contains("", terms)).isFalse();
    }

    @Test
    void aQualifierAfterTheTermDescribesTheSecretInsteadOfHoldingIt() {
        List<String> terms = List.of("token", "password");

        assertThat(contains("token_count", terms)).isFalse();
        assertThat(contains("tokenCount", terms)).isFalse();
        assertThat(contains("token_type", terms)).isFalse();
        assertThat(contains("password_expires_at", terms)).isFalse();
        assertThat(contains("token_count_password", terms)).isTrue(); // another occurrence still counts
        assertThat(contains("count_token", terms)).isTrue();
        assertThat(contains("token_id", terms)).isTrue();
        assertThat(contains("token_value", terms)).isTrue();
    }

    @Test
    void aPhraseMustEndWithTheTerm() {
        List<String> terms = List.of("apikey", "token");

        assertThat(KeyWords.endsWithTerm(KeyWords.split("invalid api key"), terms)).isTrue();
        assertThat(KeyWords.endsWithTerm(KeyWords.split("the token"), terms)).isTrue();
        assertThat(KeyWords.endsWithTerm(KeyWords.split("token count"), terms)).isFalse();
        assertThat(KeyWords.endsWithTerm(KeyWords.split("api key rotation"), terms)).isFalse();
        assertThat(KeyWords.endsWithTerm(KeyWords.split(""), terms)).isFalse();
    }

    private static boolean contains(String key, List<String> terms) {
        return KeyWords.containsTerm(KeyWords.split(key), terms);
    }
}
