package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a log receives in place of a failure ({@link Redactor#redactThrowable}): written as an attacker
 * would plant secrets in it, in messages, causes, suppressed throwables, cycles and overridden methods.
 * Every printed stack trace must keep the class names and frames and lose every secret.
 */
class RedactThrowableTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    /** Messages as drivers, HTTP clients and tool code write them, each carrying one secret. */
    private static List<String[]> messages() {
        List<String[]> cases = new ArrayList<>();
        for (String secret : SecretSamples.SHAPED) {
            cases.add(new String[] {"upstream refused the credential " + secret + " (401)", secret});
        }
        cases.add(new String[] {"connect failed: jdbc:postgresql://db/app?user=app&password=Pa55w0rd-db", "Pa55w0rd-db"});
        cases.add(new String[] {"HTTP 403 for request with Authorization: Bearer opaque-token-9f8e7d", "opaque-token-9f8e7d"});
        cases.add(new String[] {"ERROR: duplicate key. Detail: Failing row contains {\"api_key\":\"live-key-77aa\"}", "live-key-77aa"});
        cases.add(new String[] {"invalid api key: k3y-v4lu3-from-model", "k3y-v4lu3-from-model"});
        cases.add(new String[] {"Cookie: session=cookie-secret-1; theme=dark", "cookie-secret-1"});
        cases.add(new String[] {"{\\\"client_secret\\\":\\\"escaped-secret-42\\\"}", "escaped-secret-42"});
        cases.add(new String[] {"line one\npassword = multi-line-secret\nline three", "multi-line-secret"});
        return cases;
    }

    private static String printed(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    @Test
    void everyMessageInTheChainIsRedactedAndTheClassNamesAndFramesStay() {
        for (String[] c : messages()) {
            IOException root = new IOException(c[0]);
            SQLException middle = new SQLException("statement failed: " + c[0], root);
            IllegalStateException top = new IllegalStateException("tool failed: " + c[0], middle);
            top.addSuppressed(new UncheckedIOException("while closing: " + c[0], new IOException(c[0])));

            RuntimeException safe = REDACTOR.redactThrowable(top);
            String text = printed(safe);

            assertThat(printed(top)).as("the original carries the secret").contains(c[1]);
            assertThat(text).as("printed for: %s", c[0]).doesNotContain(c[1]).contains(Redactor.REDACTED);
            assertThat(text).contains("java.lang.IllegalStateException: tool failed:", "Caused by: java.sql.SQLException:",
                    "Caused by: java.io.IOException:", "Suppressed: java.io.UncheckedIOException: while closing:");
            assertThat(safe.getStackTrace()).isEqualTo(top.getStackTrace());
            assertThat(safe.getCause().getStackTrace()).isEqualTo(middle.getStackTrace());
            assertThat(safe.getCause().getCause().getStackTrace()).isEqualTo(root.getStackTrace());
            assertThat(safe.toString()).doesNotContain(c[1]).startsWith("java.lang.IllegalStateException");
            assertThat(safe.getMessage()).doesNotContain(c[1]);
            assertThat(safe.getLocalizedMessage()).doesNotContain(c[1]);
        }
    }

    @Test
    void aThrowableThatOverridesItsPrintingCannotSmuggleASecret() {
        String secret = SecretSamples.GITHUB_PAT;
        RuntimeException sly = new RuntimeException("harmless") {
            @Override
            public String toString() {
                return "token=" + secret;
            }

            @Override
            public String getLocalizedMessage() {
                return "token=" + secret;
            }

            @Override
            public void printStackTrace(PrintWriter s) {
                s.println(secret);
            }
        };
        String text = printed(REDACTOR.redactThrowable(sly));
        assertThat(text).doesNotContain(secret).contains("harmless");
    }

    @Test
    void aMessageThatThrowsIsReplacedNotPropagated() {
        RuntimeException broken = new RuntimeException() {
            @Override
            public String getMessage() {
                throw new IllegalStateException("password=from-a-broken-getter");
            }
        };
        RuntimeException safe = REDACTOR.redactThrowable(broken);
        assertThat(safe.getMessage()).contains("its message could not be read").doesNotContain("from-a-broken-getter");
    }

    @Test
    void aCycleOfCausesPrintsOnceAndEnds() {
        IllegalStateException a = new IllegalStateException("a password=cycle-secret-a");
        IllegalArgumentException b = new IllegalArgumentException("b password=cycle-secret-b");
        a.initCause(b);
        b.initCause(a);
        String text = printed(REDACTOR.redactThrowable(a));
        assertThat(text).doesNotContain("cycle-secret").contains("CIRCULAR REFERENCE");
    }

    @Test
    void aVeryLongChainIsCutNotFollowedToTheEnd() {
        Throwable chain = new IOException("bottom password=deep-secret");
        for (int i = 0; i < 5_000; i++) {
            chain = new RuntimeException("level " + i + " password=level-secret-" + i, chain);
        }
        RuntimeException safe = REDACTOR.redactThrowable(chain);
        int depth = 0;
        for (Throwable t = safe; t != null; t = t.getCause()) {
            depth++;
        }
        assertThat(depth).isEqualTo(RedactedThrowable.MAX_THROWABLES);
        assertThat(printed(safe)).doesNotContain("level-secret").doesNotContain("deep-secret");
    }

    @Test
    void aNullMessageAndTheHostsOwnTermsAreHandled() {
        assertThat(REDACTOR.redactThrowable(new NullPointerException()).toString()).isEqualTo("java.lang.NullPointerException");
        Redactor custom = Redactor.ofKeys(List.of("tenant_pin"));
        assertThat(custom.redactThrowable(new IllegalStateException("tenant_pin=8812")).getMessage())
                .doesNotContain("8812").contains("tenant_pin");
    }

    @Test
    void theOriginalIsLeftUntouched() {
        IOException root = new IOException("password=untouched");
        IllegalStateException top = new IllegalStateException("top", root);
        REDACTOR.redactThrowable(top);
        assertThat(top.getCause()).isSameAs(root);
        assertThat(root.getMessage()).isEqualTo("password=untouched");
        assertThat(top.getSuppressed()).isEmpty();
    }
}
