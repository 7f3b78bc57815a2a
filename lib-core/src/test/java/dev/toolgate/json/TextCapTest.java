package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Capping what is logged and shown: a prefix, a marker saying how much was cut, never a split secret. */
class TextCapTest {

    @Test
    void shortTextIsKeptAndLongTextKeepsItsBeginningAndSaysHowMuchWasCut() {
        assertThat(TextCap.cap(null, 100)).isNull();
        assertThat(TextCap.cap("short", 100)).isEqualTo("short");
        assertThat(TextCap.cap("x".repeat(100), 100)).isEqualTo("x".repeat(100));

        String capped = TextCap.forMessage("y".repeat(10_000_000));
        assertThat(capped).hasSizeLessThanOrEqualTo(TextCap.MESSAGE_CHARS).startsWith("y".repeat(1_900))
                .endsWith("more characters)");
        int kept = capped.indexOf('…');
        assertThat(capped.substring(kept)).isEqualTo("… (" + String.format(java.util.Locale.ROOT, "%,d", 10_000_000 - kept)
                + " more characters)");
        assertThat(TextCap.forLog("z".repeat(5_000))).hasSizeLessThanOrEqualTo(TextCap.LOG_CHARS)
                .contains("… (4,0");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String emoji = "\uD83D\uDE00";
        for (int shift = 0; shift < 2; shift++) {
            String capped = TextCap.cap("a".repeat(shift) + emoji.repeat(100), 64);
            assertThat(capped).hasSizeLessThanOrEqualTo(64);
            String prefix = capped.substring(0, capped.indexOf('…'));
            assertThat(Character.isHighSurrogate(prefix.charAt(prefix.length() - 1))).isFalse();
        }
    }

    @Test
    void aCapBelowTheMinimumIsRefused() {
        assertThatThrownBy(() -> TextCap.cap("x", TextCap.MIN_CHARS - 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void redactedFirstASecretStraddlingTheCutLeavesNoPartOfItself() {
        String secret = SecretSamples.ANTHROPIC;
        // the secret starts some 50 characters before the cut: cut first, its first part would be kept unrecognized
        String message = "e".repeat(TextCap.LOG_CHARS - 80) + " key " + secret + " tail";
        String cutFirst = TextCap.forLog(message);
        assertThat(cutFirst).as("the hazard: cutting first keeps a part of the secret").contains("sk-ant-api03-Ab3d");
        String redactedFirst = TextCap.forLog(Redactor.defaults().redactText(message));
        assertThat(redactedFirst).doesNotContain("sk-ant", "Ab3dEf").contains(Redactor.REDACTED);
    }

    @Test
    void aLoggedThrowableCarriesItsMessagesRedactedAndCut() {
        String huge = "password=hunter2 " + "m".repeat(10_000_000);
        RuntimeException logged = Redactor.defaults().redactThrowable(new IllegalStateException(huge,
                new java.io.IOException("cause: " + "c".repeat(100_000))));
        StringWriter out = new StringWriter();
        logged.printStackTrace(new PrintWriter(out));
        for (String line : out.toString().split("\n")) {
            assertThat(line.length()).as("a printed line").isLessThanOrEqualTo(TextCap.LOG_CHARS + 200);
        }
        assertThat(out.toString()).contains("java.lang.IllegalStateException: password=[REDACTED] mmm", "more characters)",
                "Caused by: java.io.IOException: cause: ccc").doesNotContain("hunter2");
    }
}
