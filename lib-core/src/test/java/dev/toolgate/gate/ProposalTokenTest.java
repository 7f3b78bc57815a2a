package dev.toolgate.gate;

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
                "x".repeat(10_000)}) {
            assertThatThrownBy(() -> ProposalToken.parse(bad)).as(String.valueOf(bad)).isInstanceOf(MalformedTokenException.class)
                    .satisfies(e -> assertThat(((MalformedTokenException) e).code()).isEqualTo("malformed_token"));
        }
    }
}
