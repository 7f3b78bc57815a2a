package dev.toolgate.examples.springai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The example runs as its README says, and tells the consent loop's story. */
class SpringAiExampleTest {

    @Test
    void theExampleShowsEveryCallAnsweredAndTheDecisionsToldBack() {
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            SpringAiExample.main(new String[0]);
        } finally {
            System.setOut(out);
        }
        String story = printed.toString(StandardCharsets.UTF_8);
        assertThat(story)
                .contains("incident__list -> executed; incident__create -> awaiting_operator; incident__create -> duplicate; "
                        + "incident__delete -> unknown_tool")
                .contains("one proposal waits, nothing created: Open incident 'VPN down'; incidents [INC-1]")
                .contains("I was told that Open incident 'VPN down' was declined by the operator: \"VPN is tracked as INC-7\"")
                .contains("incident__create -> declined (VPN is tracked as INC-7)")
                .contains("was applied by the user -> {\"id\":\"INC-2\",\"title\":\"VPN down\",\"severity\":\"critical\"}")
                .contains("(model) incident__create -> unknown_tool")
                .doesNotContain("propose:");
    }
}
