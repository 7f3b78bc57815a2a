package dev.toolgate.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoHostTest {

    @Test
    void theDemoPluginIsFoundThroughMetaInfServicesAlone() {
        try (Toolgate gate = Toolgate.builder().store(new InMemoryStore()).build()) {
            assertThat(gate.registry().tools()).extracting(RegisteredTool::name).containsExactly(
                    "catalog.listSystems", "incident.create", "incident.delete", "incident.get", "incident.list", "incident.update");
            assertThat(gate.registry().find("incident.delete").orElseThrow().effect()).isEqualTo(Effect.DESTRUCTIVE);
            assertThat(gate.registry().find("catalog.listSystems").orElseThrow().requiredAccessRules())
                    .containsExactly("catalog.system.read");
            assertThat(gate.listTools(DemoPrincipals.BOB)).extracting(ToolDescriptor::name)
                    .containsExactly("catalog.listSystems", "incident.get", "incident.list");
            assertThat(gate.listTools(DemoPrincipals.REPORTER)).isEmpty();
        }
    }

    @Test
    void theDemoRunsEveryStepOnTheInMemoryStore() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            DemoHost.run(new String[] {"--db", "memory"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            throw new AssertionError("the demo failed after printing:\n" + bytes.toString(StandardCharsets.UTF_8), e);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);

        assertThat(out)
                .containsPattern("hidden incident\\.create +\\(missing incident\\.incident\\.manage\\)")
                .contains("service principals never drive tools")
                .contains("\"additionalProperties\" : false")
                .contains("status:  awaiting_operator")
                .contains("refused [already_used]")
                .contains("refused [forbidden]: Forbidden: incident.create (missing permission: incident.incident.manage)")
                .contains("/severity    \"HIGH\" -> \"CRITICAL\"")
                .contains("alice approves it again -> Proposal")
                .contains("incident.create in AUTO -> applied card")
                .contains("incident.delete in AUTO -> awaiting_operator")
                .contains("rejected   incident.delete")
                .contains("carol starts incident.escalate -> paused at step 2: Open HIGH incident")
                .contains("alice approves -> the run replays (step 1 answered from its log) and is completed")
                .contains("  step 3 reverted\n  step 2 reverted")
                .contains("after the rollback: gone; the run is rolled_back")
                .contains("codemode.test runs the script with mutations answered by their dry-runs -> completed")
                .contains("step 2  incident.create      would_pause")
                .contains("codemode.run -> paused at step 2 (incident.create)")
                .contains("alice approves in the inbox -> the script runs again, step 1 from the log, and is completed")
                .contains("alice rolls the script's run back -> 1 step reverted; the run is rolled_back")
                .doesNotContain("unexpectedly allowed")
                .doesNotContain("Exception")
                .doesNotContain("ERROR");
        theStatusPageApiIsAnOpenApiSourceWhoseWritesWaitForConsent(out);
        theMetricsOfTheWalkthroughArePrinted(out);
    }

    /** Part of the one run above: toolgate-micrometer's meters after the walkthrough. */
    private static void theMetricsOfTheWalkthroughArePrinted(String out) {
        String metrics = out.substring(out.indexOf("== 12. The metrics of this walkthrough"));
        assertThat(metrics)
                .contains("toolgate.calls (tool, status, mode, mode source):")
                .containsPattern("incident\\.create +proposed +require_approval +inferred_default +\\d+")
                .containsPattern("incident\\.delete +rejected +require_approval +inferred_default +1")
                .containsPattern("incident\\.update +applied +allow +tenant_default +\\d+")
                .containsPattern("incident\\.list +executed +allow +inferred_default +\\d+")
                .containsPattern("toolgate\\.call\\.duration: \\d+ outcomes timed")
                .containsPattern("toolgate\\.approval\\.latency: [1-9]\\d* decisions on proposals that waited")
                .containsPattern("toolgate\\.proposals\\.pending now: \\d+\n")
                .containsPattern("toolgate\\.runs\\.paused now: \\d+\n")
                .doesNotContain("alice").doesNotContain("carol");
    }

    /** Part of the one run above: the demo plugin's data is shared, so the demo runs once per JVM. */
    private static void theStatusPageApiIsAnOpenApiSourceWhoseWritesWaitForConsent(String out) {
        assertThat(out)
                .containsPattern("openapi:statuspage +Status page +available +4 tool\\(s\\)")
                .containsPattern("hidden openapi:statuspage\\.postStatusUpdate +\\(missing incident\\.incident\\.manage\\)")
                .containsPattern("sees   openapi:statuspage\\.getComponent +read")
                .contains("bob reads openapi:statuspage.getComponent (a READ: one real HTTP GET, with the host's token) -> "
                        + "{\"status\":200,\"contentType\":\"application/json\",\"body\":{\"id\":\"db\",\"name\":\"Primary database\"")
                .contains("carol's model posts a status update to openapi:statuspage (proposed, nothing sent yet):")
                .containsPattern("  summary: POST http://127\\.0\\.0\\.1:\\d+/api/status-updates with the JSON body below")
                .contains("  the status page API received 0 requests since the proposal")
                .contains("carol applies the token -> {\"status\":201")
                .contains("  the status page API received exactly 1 request: [POST /api/status-updates {\"componentId\":\"db\","
                        + "\"status\":\"major_outage\"")
                .contains("(bearer token accepted)]")
                .contains("  | ## openapi:statuspage (Status page)")
                .contains("  | ### `openapi:statuspage.postStatusUpdate`")
                .contains("  | - effect: DESTRUCTIVE; mode: `require_approval` (inferred_default)")
                .contains("  | Calls POST /status-updates.")
                .containsPattern("applied +openapi:statuspage\\.postStatusUpdate +by user:carol")
                .doesNotContain("drifted from the contract");

        Matcher api = Pattern.compile("POST http://127\\.0\\.0\\.1:(\\d+)/api/status-updates").matcher(out);
        assertThat(api.find()).isTrue();
        int port = Integer.parseInt(api.group(1));
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).as("the demo stops the status page API")
                .isInstanceOf(ConnectException.class);
    }
}
