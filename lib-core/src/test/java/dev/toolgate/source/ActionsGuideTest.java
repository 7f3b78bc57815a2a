package dev.toolgate.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The actions guide is the same page for the same tools and policy (compared with a golden file),
 * lists only what the principal may use, groups by plugin and source, and names sources that are
 * down. Set {@code -Dtoolgate.updateGolden=true} to rewrite the golden file after a deliberate change.
 */
class ActionsGuideTest {

    enum Severity { low, high }

    record NewIncident(@Size(min = 1, max = 120) String title, String systemId, Optional<Severity> severity,
                       List<String> tags) {
    }

    record NoteQuery(String text, Optional<Integer> limit) {
    }

    private static Toolgate gate() {
        Tool<NewIncident, ?> create = Tool.builder("create", NewIncident.class)
                .description("Open an incident for a system. Pass the system id, not its name.")
                .effect(Effect.MUTATE).requires("incident.manage")
                .dryRun((in, ctx) -> Preview.of("Open " + in.title()))
                .execute((in, ctx) -> "ok").build();
        Tool<NoteQuery, ?> search = Tool.builder("search", NoteQuery.class)
                .description("Search notes.").effect(Effect.READ).requires("notes.read")
                .execute((in, ctx) -> List.of()).build();
        ObjectNode schema = (ObjectNode) Json.parse("""
                {"type":"object","properties":{"repo":{"type":"string"},"state":{"enum":["open","closed"]},
                 "labels":{"type":"array","items":{"type":"string"}},
                 "filter":{"type":"object","properties":{"author":{"type":"string"},"since":{"type":["string","null"]}}}},
                 "required":["repo"]}""");
        ToolSourcesTest.FakeSource github = new ToolSourcesTest.FakeSource("mcp:github",
                new SourceTool("list_issues", "List Issues", "List the issues of a repository.", Effect.READ, schema, null,
                        Set.of("github.use"), true),
                new SourceTool("delete_repo", null, "Delete a repository.", Effect.DESTRUCTIVE, schema, null,
                        Set.of("github.use"), true));
        ToolSourcesTest.FakeSource sentry = new ToolSourcesTest.FakeSource("mcp:sentry");
        sentry.down = new IllegalStateException("connection refused");
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .tools("incident", create).tools("notes", search).source(github).source(sentry)
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(2), Duration.ofSeconds(5)).build();
        gate.setMode(CallContext.of(Principal.user("olga", "toolgate.approvals.manage", "*")).withTenant("acme"),
                OverrideScope.TENANT, "incident.create", Mode.ALLOW);
        return gate;
    }

    @Test
    void theGuideMatchesItsGoldenFileAndIsTheSameEveryTime() throws IOException {
        try (Toolgate gate = gate()) {
            CallContext carol = CallContext.of(Principal.user("carol", "incident.manage", "notes.read", "github.use"))
                    .withTenant("acme");
            String guide = gate.guide(carol);
            assertThat(gate.guide(carol)).isEqualTo(guide);
            Path golden = Path.of("src/test/resources/dev/toolgate/source/guide-carol.md");
            if (Boolean.getBoolean("toolgate.updateGolden")) {
                Files.writeString(golden, guide, StandardCharsets.UTF_8);
            }
            try (InputStream in = ActionsGuideTest.class.getResourceAsStream("guide-carol.md")) {
                assertThat(in).as("golden file %s", golden).isNotNull();
                assertThat(guide).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void theGuideListsOnlyWhatThePrincipalMayUse() {
        try (Toolgate gate = gate()) {
            String guide = gate.guide(Principal.user("nina", "notes.read"));
            assertThat(guide).startsWith("# Tools for user:nina").contains("### `notes.search`")
                    .doesNotContain("incident.create").doesNotContain("mcp:github.list_issues")
                    .contains("## mcp:github (Fake mcp:github)").contains("No tools from here for this principal.")
                    .contains("## mcp:sentry (Fake mcp:sentry)").contains("_Unavailable: IllegalStateException: connection refused.");
            assertThat(guide).contains("- effect: READ; mode: `allow` (inferred_default)")
                    .contains("- input: `{limit?: number | null, text: string}`");
        }
    }
}
