package dev.toolgate.gate;

import dev.toolgate.call.MalformedTokenException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ProposalTokenTest {

    private final String id = UUID.randomUUID().toString();
    private final ProposalToken token = ProposalToken.generate(id, new SecureRandom());

    @Test
    void aTokenRoundTripsAndMatchesOnlyItsOwnDigest() {
        String value = token.value();
        assertThat(value).matches("propose:[0-9a-f-]{36}\\.[0-9a-f]{64}");
        ProposalToken parsed = ProposalToken.parse(value);
        assertThat(parsed.callId()).isEqualTo(id);
        assertThat(parsed.matches(token.nonceDigestHex())).isTrue();
        assertThat(ProposalToken.generate(id, new SecureRandom()).matches(token.nonceDigestHex())).isFalse();
        assertThat(parsed.matches(null)).isFalse();
        assertThat(parsed.matches("zz")).isFalse();
        assertThat(ProposalToken.parse(value.toUpperCase().replace("PROPOSE:", "propose:").replace(id.toUpperCase(), id))
                .matches(token.nonceDigestHex())).as("hex case does not matter").isTrue();
    }

    @Test
    void theNonceIsNeverPrintedOrStored() {
        String nonce = token.value().substring(token.value().lastIndexOf('.') + 1);
        assertThat(token.toString()).doesNotContain(nonce).endsWith(".<hidden>");
        assertThat(token.nonceDigestHex()).doesNotContain(nonce).hasSize(64);
    }

    @Test
    void malformedTokensAreRejectedWithAReason() {
        String good = token.value();
        for (String bad : new String[] {null, "", "propose:", "apply:" + good.substring(8), good + "0", good.substring(0, good.length() - 2),
                "propose:not-a-uuid." + "a".repeat(64), "propose:" + id + "." + "g".repeat(64), "propose:" + id + "a".repeat(64),
                "x".repeat(10_000),
                // an id that is almost a lower-case UUID: upper case, hyphen moved or missing, non-ASCII digits and letters
                "propose:" + id.toUpperCase(java.util.Locale.ROOT) + "." + "a".repeat(64),
                "propose:" + id.substring(0, 8) + id.substring(9, 10) + "-" + id.substring(10) + "." + "a".repeat(64),
                "propose:" + id.replace("-", "0") + "." + "a".repeat(64),
                "propose:" + "\u0663".repeat(8) + id.substring(8) + "." + "a".repeat(64),
                "propose:" + "\uff41".repeat(8) + id.substring(8) + "." + "a".repeat(64),
                "propose:" + id + " ." + "a".repeat(64),
                // a nonce one short, one long, with a non-hex, a fullwidth or an Arabic-Indic digit, or a sign
                "propose:" + id + "." + "a".repeat(63), "propose:" + id + "." + "a".repeat(65),
                "propose:" + id + "." + "a".repeat(63) + "\uff41", "propose:" + id + "." + "a".repeat(63) + "\u0663",
                "propose:" + id + "." + "a".repeat(63) + "-", "propose:" + id + "." + "+" + "a".repeat(63),
                "propose:" + id + "." + "a".repeat(62) + "\n"}) {
            assertThatThrownBy(() -> ProposalToken.parse(bad)).as(String.valueOf(bad)).isInstanceOf(MalformedTokenException.class)
                    .satisfies(e -> assertThat(((MalformedTokenException) e).code()).isEqualTo("malformed_token"));
        }
    }

    @Test
    void aTokenParsesBackToItselfAndItsDigestMatchesOnlyItsOwn() {
        ProposalToken parsed = ProposalToken.parse(token.value());
        assertThat(parsed.callId()).isEqualTo(id);
        assertThat(parsed.value()).isEqualTo(token.value());
        assertThat(parsed.nonceDigestHex()).isEqualTo(token.nonceDigestHex()).matches("[0-9a-f]{64}");
        assertThat(parsed.nonceDigest()).hasSize(32);
        assertThat(token.matches(parsed.nonceDigestHex())).isTrue();
        assertThat(token.matches(parsed.nonceDigestHex().toUpperCase(java.util.Locale.ROOT))).isTrue();
        ProposalToken other = ProposalToken.generate(id, new java.security.SecureRandom());
        assertThat(token.matches(other.nonceDigestHex())).isFalse();
        assertThat(token.matches(null)).isFalse();
        assertThat(token.matches("zz".repeat(32))).isFalse();
        // the digest is SHA-256 of the nonce's bytes
        byte[] nonce = java.util.HexFormat.of().parseHex(token.value().substring(token.value().lastIndexOf('.') + 1));
        assertThat(token.nonceDigest()).isEqualTo(sha256(nonce));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
