package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.context.docs.DocsIndex;
import dev.toolgate.context.docs.DocsTools;
import dev.toolgate.context.web.ProbeSettings;
import dev.toolgate.context.web.ProbeTools;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.tool.ToolValidationException;
import java.io.PrintStream;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The demo's grounding section: carol's model searches Toolgate's own README files (bundled as
 * {@code docs/} on the classpath), is told to stop when the docs do not cover a question, is pointed to
 * real pages when it guesses a slug, and asks {@code web.probeUrl} for internal addresses, which the
 * SSRF guard refuses before any connection is made. Nothing here needs the network.
 */
final class GroundingTour {

    /**
     * The index of the bundled README files ({@code docs/} on the classpath), written at build time:
     * {@code ./mvnw -q -pl examples/demo-host -am compile exec:java -Dexec.mainClass=dev.toolgate.context.docs.DocsIndexTool
     * -Dexec.args="write examples/demo-host/target/classes/docs examples/demo-host/src/main/resources/docs-index.bin"};
     * {@code .ci/run} fails when a README changed without it.
     */
    public static final String DOCS_INDEX = "docs-index.bin";

    /** Who may probe URLs: the people who draft checks and incidents. */
    static final String PROBE_RULE = "incident.incident.manage";

    private final Toolgate gate;
    private final PrintStream out;
    private final Function<Principal, CallContext> as;

    GroundingTour(Toolgate gate, PrintStream out, Function<Principal, CallContext> as) {
        this.gate = gate;
        this.out = out;
        this.as = as;
    }

    /** Registers the docs tools (for everyone: the docs are public) and the probe (for {@link #PROBE_RULE}). */
    static void register(Toolgate gate) {
        // built at build time (DocsIndexTool write; CI checks it matches the bundled README files)
        gate.registry().register(DocsTools.tools(DocsIndex.fromPrebuilt(DOCS_INDEX)));
        gate.registry().register(ProbeTools.tools(ProbeSettings.defaults(), PROBE_RULE));
    }

    void run() {
        CallContext carol = as.apply(DemoPrincipals.CAROL);
        JsonNode found = ((Executed) gate.call(carol, DocsTools.SEARCH_DOCS,
                "{\"query\":\"how do I roll back a durable run\",\"limit\":2}")).result();
        JsonNode top = found.path("hits").path(0);
        out.printf("carol searches the docs for \"how do I roll back a durable run\" -> %s, section \"%s\"%n",
                top.path("slug").asString(), top.path("heading").asString());
        out.println("  note: " + found.path("note").asString());

        JsonNode nothing = ((Executed) gate.call(carol, DocsTools.SEARCH_DOCS, "{\"query\":\"kubernetes helm chart\"}")).result();
        out.println("carol searches for \"kubernetes helm chart\" -> " + nothing.path("hits").size() + " hit(s)");
        out.println("  note: " + nothing.path("note").asString());

        out.println("carol's model guesses a slug:");
        try {
            gate.call(carol, DocsTools.GET_DOC, "{\"slug\":\"jdbc\"}");
            out.println("  (unexpectedly found)");
        } catch (ToolValidationException e) {
            out.println("  feedback: " + e.feedback().issues());
        }

        out.println("carol's model probes internal addresses (refused before any connection):");
        for (String url : new String[] {"http://169.254.169.254/latest/meta-data/", "http://0x7f.1:8080/admin",
                "http://localhost:5432/"}) {
            try {
                gate.call(carol, "web.probeUrl", "{\"url\":\"" + url + "\"}");
                out.println("  " + url + " (unexpectedly probed)");
            } catch (ToolExecutionException e) {
                out.println("  " + url + " -> " + e.getMessage().replaceFirst("^\\w+: ", ""));
            }
        }
    }
}
