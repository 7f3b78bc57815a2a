package dev.toolgate.examples.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example runs as its README says, and tells the consent loop's story. */
class LangChain4jExampleTest {

    @Test
    void theExampleShowsEveryCallAnsweredAndTheDecisionsToldBack() {
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            LangChain4jExample.main(new String[0]);
        } finally {
            System.setOut(out);
        }
        String story = printed.toString(StandardCharsets.UTF_8);
        assertThat(story)
                .contains("incident__find -> executed; incident__create -> awaiting_user; incident__create -> duplicate; "
                        + "incident__purge -> unknown_tool")
                .contains("one proposal waits, nothing opened: Open incident \"Database slow again\" (high); incidents [Database slow]")
                .contains("was declined by the operator: \"INC-4 already covers it\"")
                .contains("incident__create -> declined (INC-4 already covers it)")
                .contains("incidents now [Database slow, Database slow again (low)]")
                .contains("(low) was applied by the user -> \"opened Database slow again\"")
                .doesNotContain("propose:");
    }
}
