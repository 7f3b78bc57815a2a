package dev.toolgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The page's assets, as the Content-Security-Policy needs them: no inline script or style, no
 * handler attributes, nothing loaded from elsewhere, no HTML built from strings in the script, small.
 */
class AssetsTest {

    private static String asset(String name) throws IOException {
        try (InputStream in = AssetsTest.class.getClassLoader().getResourceAsStream(Assets.ROOT + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void thePageHasNoInlineScriptStyleOrHandlers() throws IOException {
        String html = asset("index.html");
        assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>", Pattern.CASE_INSENSITIVE).matcher(html).find())
                .as("every script has a src").isFalse();
        assertThat(html).doesNotContainIgnoringCase("<style").doesNotContainIgnoringCase(" style=")
                .doesNotContainIgnoringCase("javascript:");
        assertThat(Pattern.compile("\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE).matcher(html).find())
                .as("no onclick= and the like").isFalse();
        assertThat(Pattern.compile("(src|href)\\s*=\\s*\"(https?:)?//", Pattern.CASE_INSENSITIVE).matcher(html).find())
                .as("nothing from another host").isFalse();
    }

    @Test
    void theScriptNeverBuildsHtmlFromStringsOrEvaluatesCode() throws IOException {
        String js = asset("console.js");
        for (String sink : List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                "new Function", "setTimeout(\"", "setInterval(\"", "srcdoc", "javascript:", "http://", "https://")) {
            assertThat(js).as("console.js must not use " + sink).doesNotContain(sink);
        }
        assertThat(asset("console.css")).doesNotContain("@import").doesNotContain("url(http");
    }

    @Test
    void everyStatusCanBeFilteredAndHasATone_successesAloneGreen() throws IOException {
        String html = asset("index.html");
        String js = asset("console.js");
        var block = Pattern.compile("const STATUS_TONE = \\{([^}]*)}").matcher(js);
        assertThat(block.find()).as("console.js has its STATUS_TONE table").isTrue();
        var tones = new java.util.HashMap<String, String>();
        var entry = Pattern.compile("([a-z_]+): '([a-z]+)'").matcher(block.group(1));
        while (entry.find()) {
            tones.put(entry.group(1), entry.group(2));
        }
        for (CallStatus status : CallStatus.values()) {
            String name = status.wireName();
            assertThat(html).as("the audit filter offers " + name).contains("<option>" + name + "</option>");
            assertThat(tones).as("console.js gives " + name + " a tone").containsKey(name);
            boolean success = status == CallStatus.APPLIED || status == CallStatus.EXECUTED;
            assertThat(tones.get(name).equals("ok")).as(name + " reads as a success").isEqualTo(success);
        }
        for (CallStatus refusal : List.of(CallStatus.DENIED, CallStatus.REJECTED, CallStatus.FAILED, CallStatus.INVALID)) {
            assertThat(tones.get(refusal.wireName())).as(refusal.wireName()).isEqualTo("error");
        }
        String css = asset("console.css");
        for (String tone : new java.util.TreeSet<>(tones.values())) {
            assertThat(Pattern.compile("\\.tone-" + tone + "\\b").matcher(css).find()).as("console.css styles tone " + tone).isTrue();
        }
    }

    @Test
    void theAssetsAreSmall() throws IOException {
        int total = 0;
        for (String name : List.of("index.html", "console.js", "console.css", "favicon.svg")) {
            total += asset(name).getBytes(StandardCharsets.UTF_8).length;
        }
        assertThat(total).isLessThan(60 * 1024);
    }
}
