package dev.toolgate.mcp.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.source.ToolSource;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolValidationException;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Remote MCP servers as tool sources, against a server nobody here wrote: the MCP reference server
 * "everything" from the npm registry, over stdio and Streamable HTTP.
 */
class EverythingSourceTest {

    private static final Principal CAROL = Principal.user("carol", "*");
    private static final Principal OLGA = Principal.user("olga", "toolgate.approvals.manage", "*");
    private static final String SECRET = "sk-live-" + "7f3a9c2e1b4d8f6a0c5e";
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private Toolgate gate(ToolSource... sources) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of("everything-key", SECRET)))
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofSeconds(30));
        for (ToolSource source : sources) {
            builder.source(source);
        }
        Toolgate gate = builder.build();
        closing.add(gate);
        return gate;
    }

    private static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1").withTenant("acme");
    }

    private static McpSource.Builder stdio(String name) throws Exception {
        return McpSource.stdio(name, Everything.stdioCommand()).envSecret("EVERYTHING_API_KEY", "everything-key");
    }

    @Test
    void overStdioEveryRemoteToolIsGovernedAndNoneIsReadWithoutAReadOnlyHint() throws Exception {
        Toolgate gate = gate(stdio("everything").displayName("Everything").build());
        SourceStatus status = gate.listSources().get(0);
        assertThat(status.state()).as("status %s", status).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(status.skipped()).isEmpty();

        Map<String, ToolDescriptor> tools = gate.listTools(CAROL).stream()
                .collect(Collectors.toMap(ToolDescriptor::name, Function.identity()));
        assertThat(tools).containsKeys("mcp:everything.echo", "mcp:everything.get-sum", "mcp:everything.get-env",
                "mcp:everything.toggle-simulated-logging");
        assertThat(tools.get("mcp:everything.echo").effect()).isEqualTo(Effect.READ);
        assertThat(tools.get("mcp:everything.toggle-simulated-logging").effect()).isEqualTo(Effect.MUTATE);

        // invariant 15, against the server's own listing: READ only where the server says read-only
        Map<String, McpSchema.Tool> remote = rawListing();
        assertThat(remote).hasSize(tools.size());
        for (ToolDescriptor tool : tools.values()) {
            McpSchema.Tool original = remote.get(tool.name().substring("mcp:everything.".length()));
            assertThat(original).as(tool.name()).isNotNull();
            boolean readOnly = original.annotations() != null && Boolean.TRUE.equals(original.annotations().readOnlyHint())
                    && !Boolean.TRUE.equals(original.annotations().destructiveHint());
            assertThat(tool.effect() == Effect.READ).as("%s is READ only if read-only", tool.name()).isEqualTo(readOnly);
            RegisteredTool registered = gate.registry().find(tool.name()).orElseThrow();
            assertThat(registered.tool().dynamic()).isTrue();
        }

        CallResult echo = gate.call(ctx(CAROL), "mcp:everything.echo", "{\"message\":\"hello gate\"}");
        assertThat(echo).isInstanceOf(Executed.class);
        assertThat(((Executed) echo).result().toString()).contains("Echo: hello gate");
        CallRecord record = gate.findCall(((Executed) echo).callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.EXECUTED);
        assertThat(record.toolName()).isEqualTo("mcp:everything.echo");

        Executed sum = (Executed) gate.call(ctx(CAROL), "mcp:everything.get-sum", "{\"a\":2,\"b\":40}");
        assertThat(sum.result().toString()).contains("42");
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:everything.get-sum", "{\"a\":\"two\",\"b\":40}"))
                .as("validated locally against the remote schema").isInstanceOf(ToolValidationException.class)
                .hasMessageContaining("/a");
    }

    private static Map<String, McpSchema.Tool> rawListing() throws Exception {
        String[] command = Everything.stdioCommand();
        ServerParameters parameters = ServerParameters.builder(command[0]).args(List.of(command).subList(1, command.length)).build();
        McpSyncClient client = McpClient.sync(new StdioClientTransport(parameters, McpJsonDefaults.getMapper()))
                .requestTimeout(Duration.ofSeconds(30)).build();
        try {
            client.initialize();
            return client.listTools().tools().stream().collect(Collectors.toMap(McpSchema.Tool::name, Function.identity()));
        } finally {
            client.closeGracefully();
        }
    }

    @Test
    void aMutatingRemoteToolIsProposedWithItsPayloadAndRunsOnlyWhenApplied() throws Exception {
        Toolgate gate = gate(stdio("everything").build());

        CallResult result = gate.call(ctx(CAROL), "mcp:everything.toggle-simulated-logging", "{}");
        assertThat(result).isInstanceOf(Proposal.class);
        Proposal proposal = (Proposal) result;
        assertThat(proposal.summary()).contains("no dry-run").contains("Toggles simulated, random-leveled logging");
        assertThat(proposal.effect()).isEqualTo(Effect.MUTATE);

        Applied applied = gate.apply(ctx(CAROL), proposal.token());
        assertThat(applied.result().toString()).containsIgnoringCase("logging");
        assertThat(gate.findCall(applied.callId()).orElseThrow().status()).isEqualTo(CallStatus.APPLIED);
    }

    @Test
    void theHostsEffectOverrideReplacesTheHintAndADestructiveToolWaitsEvenUnderAllow() throws Exception {
        Toolgate gate = gate(stdio("everything").effect("toggle-simulated-logging", Effect.DESTRUCTIVE)
                .effect("get-env", Effect.MUTATE).build());
        assertThat(gate.registry().find("mcp:everything.toggle-simulated-logging").orElseThrow().effect())
                .isEqualTo(Effect.DESTRUCTIVE);
        assertThat(gate.registry().find("mcp:everything.get-env").orElseThrow().effect()).isEqualTo(Effect.MUTATE);

        gate.setMode(ctx(OLGA), OverrideScope.TENANT, "mcp:everything.toggle-simulated-logging", Mode.ALLOW);
        assertThat(gate.call(ctx(CAROL), "mcp:everything.toggle-simulated-logging", "{}"))
                .as("DESTRUCTIVE never runs without a person").isInstanceOf(Proposal.class);
        assertThat(gate.call(ctx(CAROL), "mcp:everything.get-env", "{}")).isInstanceOf(Proposal.class);
    }

    @Test
    void aSecretGivenToTheServerNeverReachesTheModelOrTheAudit() throws Exception {
        Toolgate gate = gate(stdio("everything").build());
        gate.setMode(ctx(OLGA), OverrideScope.TENANT, "mcp:everything.get-env", Mode.ALLOW);

        Executed env = (Executed) gate.call(ctx(CAROL), "mcp:everything.get-env", "{}");
        String shown = env.result().toString();
        assertThat(shown).as("the server really printed its environment").contains("EVERYTHING_API_KEY");
        assertThat(shown).doesNotContain(SECRET);
        assertThat(gate.findCall(env.callId()).orElseThrow().resultJson()).doesNotContain(SECRET);
    }

    @Test
    void overStreamableHttpWithAHeaderSecretAndAServerThatGoesDownAndComesBack() throws Exception {
        Everything.Http server = Everything.Http.start();
        closing.add(server);
        McpSource source = McpSource.http("remote", server.endpoint()).headerSecret("X-Api-Key", "everything-key").build();
        Toolgate gate = gate(source);
        assertThat(gate.listSources().get(0).state()).isEqualTo(SourceStatus.State.AVAILABLE);
        Executed echo = (Executed) gate.call(ctx(CAROL), "mcp:remote.echo", "{\"message\":\"over http\"}");
        assertThat(echo.result().toString()).contains("Echo: over http");

        server.close();
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:remote.echo", "{\"message\":\"anyone?\"}"))
                .isInstanceOfSatisfying(SourceUnavailableException.class, e -> {
                    assertThat(e.sourceId()).isEqualTo("mcp:remote");
                    CallRecord failed = gate.findCall(e.callId()).orElseThrow();
                    assertThat(failed.status()).isEqualTo(CallStatus.FAILED);
                    assertThat(failed.error()).contains("mcp:remote is unavailable");
                });
        assertThat(gate.refreshSource("mcp:remote").state()).isEqualTo(SourceStatus.State.UNAVAILABLE);
        assertThat(gate.listTools(CAROL)).extracting(ToolDescriptor::name).as("its tools stay listed")
                .contains("mcp:remote.echo");

        Everything.Http again = Everything.Http.start(server.port);
        closing.add(again);
        assertThat(gate.refreshSource("mcp:remote").state()).isEqualTo(SourceStatus.State.AVAILABLE);
        Executed back = (Executed) gate.call(ctx(CAROL), "mcp:remote.echo", "{\"message\":\"back\"}");
        assertThat(back.result().toString()).contains("Echo: back");
    }

    @Test
    void anUnreachableServerIsReportedAndTheOthersServeAsUsual() throws Exception {
        int closedPort = Everything.freePort();
        Toolgate gate = gate(stdio("everything").build(),
                McpSource.http("down", URI.create("http://127.0.0.1:" + closedPort + "/mcp"))
                        .connectTimeout(Duration.ofSeconds(2)).build(),
                McpSource.http("keyless", URI.create("http://127.0.0.1:" + closedPort + "/mcp")).bearerSecret("absent").build());

        List<SourceStatus> statuses = gate.listSources();
        assertThat(statuses).extracting(SourceStatus::state).containsExactly(SourceStatus.State.AVAILABLE,
                SourceStatus.State.UNAVAILABLE, SourceStatus.State.UNAVAILABLE);
        assertThat(statuses.get(1).error()).contains("could not be reached");
        assertThat(statuses.get(2).error()).contains("the secret 'absent' is not configured");
        assertThat(gate.call(ctx(CAROL), "mcp:everything.echo", "{\"message\":\"still here\"}")).isInstanceOf(Executed.class);
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:down.echo", "{\"message\":\"x\"}"))
                .isInstanceOf(SourceUnavailableException.class).hasMessageContaining("mcp:down is unavailable");
        assertThat(gate.guide(CAROL)).contains("## mcp:down").contains("_Unavailable: ");
    }

    @Test
    void badConfigurationIsRefusedWhereItIsWritten() {
        assertThatThrownBy(() -> McpSource.http("x", URI.create("ftp://host/mcp"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http or https");
        assertThatThrownBy(() -> McpSource.http("x", URI.create("https://user:pw@host/mcp")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("header secret");
        assertThatThrownBy(() -> McpSource.http("bad name", URI.create("https://host/mcp")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid MCP source name");
        assertThatThrownBy(() -> McpSource.http("x", URI.create("https://host/mcp")).header("X-Evil", "a\r\nHost: b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line break");
        assertThatThrownBy(() -> McpSource.http("x", URI.create("https://host/mcp")).env("A", "b"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> McpSource.stdio("x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void effectsAreReadInTheSafeDirection() {
        assertThat(McpSource.effectOf(null)).isEqualTo(Effect.MUTATE);
        assertThat(McpSource.effectOf(new McpSchema.ToolAnnotations(null, null, null, null, null, null))).isEqualTo(Effect.MUTATE);
        assertThat(McpSource.effectOf(new McpSchema.ToolAnnotations(null, true, null, null, null, null))).isEqualTo(Effect.READ);
        assertThat(McpSource.effectOf(new McpSchema.ToolAnnotations(null, false, false, null, null, null))).isEqualTo(Effect.MUTATE);
        assertThat(McpSource.effectOf(new McpSchema.ToolAnnotations(null, null, true, null, null, null))).isEqualTo(Effect.DESTRUCTIVE);
        assertThat(McpSource.effectOf(new McpSchema.ToolAnnotations(null, true, true, null, null, null)))
                .as("a contradiction is read as the worse").isEqualTo(Effect.DESTRUCTIVE);
    }
}
