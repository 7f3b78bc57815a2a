package dev.toolgate.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.SourceListing;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.audit.ToolDrift;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tool sources as the gate governs them: registration under the source id, local validation,
 * propose/apply for mutations, unreachable and hanging sources, refresh and its notifications,
 * secrets kept out of results and messages, drift of a source's schema.
 */
class ToolSourcesTest {

    private static final Principal CAROL = Principal.user("carol", "*");
    private static final Principal OPERATOR = Principal.user("olga", "toolgate.approvals.manage", "*");
    private final List<Toolgate> gates = new ArrayList<>();

    @AfterEach
    void close() {
        gates.forEach(Toolgate::close);
    }

    /** A source in memory: its tools can change, it can go down, it can hang. */
    static final class FakeSource implements ToolSource {
        final String id;
        volatile List<SourceTool> tools;
        volatile RuntimeException down;
        volatile CountDownLatch hang;
        final AtomicInteger listings = new AtomicInteger();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<String> callThreads = new CopyOnWriteArrayList<>();
        volatile String secretName;

        FakeSource(String id, SourceTool... tools) {
            this.id = id;
            this.tools = List.of(tools);
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public String displayName() {
            return "Fake " + id;
        }

        @Override
        public List<SourceTool> listTools(SourceContext context) throws Exception {
            listings.incrementAndGet();
            if (hang != null) {
                hang.await();
            }
            if (down != null) {
                throw down;
            }
            if (secretName != null) {
                context.secrets().require(secretName);
            }
            return tools;
        }

        @Override
        public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) {
            calls.add(tool + " " + arguments);
            callThreads.add(Thread.currentThread().getName());
            if (down != null) {
                throw new SourceUnavailableException(null, tool, id, "connection refused");
            }
            ObjectNode result = Json.mapper().createObjectNode();
            result.put("tool", tool);
            result.set("arguments", arguments);
            result.put("principal", context.call().orElseThrow().principal().id());
            if (secretName != null) {
                String secret = context.secrets().require(secretName);
                if (tool.equals("fail")) {
                    throw new IllegalStateException("401 for token " + secret);
                }
                result.put("echoedHeader", "Bearer " + secret);
            }
            return result;
        }
    }

    static ObjectNode schema(String json) {
        return (ObjectNode) Json.parse(json);
    }

    static final ObjectNode TEXT = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
            + "\"required\":[\"text\"]}");

    private Toolgate gate(ToolSource... sources) {
        return gate(new InMemoryStore(), SecretResolver.none(), Duration.ofMinutes(5), sources);
    }

    private Toolgate gate(InMemoryStore store, SecretResolver secrets, Duration ttl, ToolSource... sources) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store).secrets(secrets)
                .policyCacheTtl(Duration.ZERO).sourceTimings(ttl, Duration.ofMillis(500), Duration.ofSeconds(5));
        for (ToolSource source : sources) {
            builder.source(source);
        }
        Toolgate gate = builder.build();
        gates.add(gate);
        return gate;
    }

    private static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1");
    }

    @Test
    void aSourcesToolsAreRegisteredUnderItsIdAndAReadRunsThroughTheSource() {
        FakeSource docs = new FakeSource("mcp:docs", SourceTool.of("search", "Search the docs.", Effect.READ, TEXT));
        Toolgate gate = gate(docs);

        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:docs.search");
        RegisteredTool tool = gate.registry().find("mcp:docs.search").orElseThrow();
        assertThat(tool.pluginId()).isEqualTo("mcp:docs");
        assertThat(tool.tool().dynamic()).isTrue();
        assertThat(tool.descriptor().inputSchema()).isEqualTo(TEXT);

        CallResult result = gate.call(ctx(CAROL), "mcp:docs.search", "{\"text\":\"retention\"}");
        assertThat(result).isInstanceOf(Executed.class);
        assertThat(((Executed) result).result().path("principal").asString()).isEqualTo("carol");
        // a remote call waits on a network: handed to a tool thread of the gate, not run on the caller's
        assertThat(tool.onCallerThread()).isFalse();
        assertThat(docs.callThreads).singleElement().asString().startsWith("toolgate-tool-")
                .isNotEqualTo(Thread.currentThread().getName());
        assertThat(docs.calls).containsExactly("search {\"text\":\"retention\"}");
        CallRecord record = gate.findCall(((Executed) result).callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.EXECUTED);
        assertThat(record.toolName()).isEqualTo("mcp:docs.search");
        assertThat(gate.listSources()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(SourceStatus.State.AVAILABLE);
            assertThat(s.tools()).isEqualTo(1);
            assertThat(s.displayName()).isEqualTo("Fake mcp:docs");
            assertThat(s.listedAt()).isNotNull();
        });
    }

    @Test
    void argumentsAreValidatedLocallyAndABadCallNeverReachesTheSource() {
        FakeSource docs = new FakeSource("mcp:docs", SourceTool.of("search", "Search the docs.", Effect.READ, TEXT));
        Toolgate gate = gate(docs);

        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:docs.search", "{\"text\":42}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("/text");
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:docs.search", "{}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("text");
        assertThat(docs.calls).isEmpty();
    }

    @Test
    void aMutatingSourceToolIsProposedWithItsPayloadAndDescriptionAndRunsOnlyOnApply() {
        FakeSource tracker = new FakeSource("mcp:tracker",
                SourceTool.of("close_issue", "Close an issue in the tracker.", Effect.MUTATE, TEXT));
        Toolgate gate = gate(tracker);

        CallResult result = gate.call(ctx(CAROL), "mcp:tracker.close_issue", "{\"text\":\"ISSUE-7\"}");
        assertThat(result).isInstanceOf(Proposal.class);
        Proposal proposal = (Proposal) result;
        assertThat(proposal.summary()).contains("mcp:tracker.close_issue").contains("no dry-run")
                .contains("Close an issue in the tracker.");
        assertThat(proposal.payload()).isEqualTo(Json.parse("{\"text\":\"ISSUE-7\"}"));
        assertThat(tracker.calls).as("nothing runs before consent").isEmpty();

        Applied applied = gate.apply(ctx(CAROL), proposal.token());
        assertThat(applied.result().path("tool").asString()).isEqualTo("close_issue");
        assertThat(tracker.calls).containsExactly("close_issue {\"text\":\"ISSUE-7\"}");
    }

    @Test
    void anUnreachableSourceIsReportedAndNeverHoldsUpTheOthers() {
        FakeSource up = new FakeSource("mcp:up", SourceTool.of("ping", "Ping.", Effect.READ, TEXT));
        FakeSource down = new FakeSource("mcp:down", SourceTool.of("ping", "Ping.", Effect.READ, TEXT));
        down.down = new IllegalStateException("connection refused by 10.0.0.9:443");
        FakeSource hanging = new FakeSource("db:slow", SourceTool.of("query", "Query.", Effect.READ, TEXT));
        hanging.hang = new CountDownLatch(1);

        long start = System.nanoTime();
        Toolgate gate = gate(up, down, hanging);
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        hanging.hang.countDown();

        assertThat(tookMillis).as("the hanging source is cut at its 500 ms listing timeout").isLessThan(5_000);
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:up.ping");
        assertThat(gate.listSources()).extracting(SourceStatus::id, SourceStatus::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple("mcp:up", SourceStatus.State.AVAILABLE),
                org.assertj.core.groups.Tuple.tuple("mcp:down", SourceStatus.State.UNAVAILABLE),
                org.assertj.core.groups.Tuple.tuple("db:slow", SourceStatus.State.UNAVAILABLE));
        assertThat(gate.listSources().get(1).error()).contains("connection refused by 10.0.0.9:443");
        assertThat(gate.listSources().get(2).error()).contains("timed out after 500 ms");

        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:down.ping", "{\"text\":\"x\"}"))
                .isInstanceOfSatisfying(SourceUnavailableException.class, e -> {
                    assertThat(e.sourceId()).isEqualTo("mcp:down");
                    assertThat(e.callId()).as("a tool never listed is not recorded").isNull();
                    assertThat(e.getMessage()).contains("mcp:down is unavailable").contains("connection refused");
                });
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:up.nope", "{}")).isInstanceOf(UnknownToolException.class);
        assertThat(gate.call(ctx(CAROL), "mcp:up.ping", "{\"text\":\"x\"}")).isInstanceOf(Executed.class);
    }

    @Test
    void aSourceThatGoesDownKeepsItsToolsAndACallIsRecordedAsFailedWithATypedError() {
        FakeSource docs = new FakeSource("mcp:docs", SourceTool.of("search", "Search the docs.", Effect.READ, TEXT));
        Toolgate gate = gate(docs);
        docs.down = new IllegalStateException("connect timed out");

        SourceStatus status = gate.refreshSource("mcp:docs");
        assertThat(status.state()).isEqualTo(SourceStatus.State.UNAVAILABLE);
        assertThat(status.tools()).as("tools from the earlier listing stay").isEqualTo(1);
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:docs.search");

        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:docs.search", "{\"text\":\"x\"}"))
                .isInstanceOfSatisfying(SourceUnavailableException.class, e -> {
                    assertThat(e.callId()).isNotNull();
                    CallRecord record = gate.findCall(e.callId()).orElseThrow();
                    assertThat(record.status()).isEqualTo(CallStatus.FAILED);
                    assertThat(record.error()).contains("SourceUnavailableException").contains("mcp:docs is unavailable");
                });

        docs.down = null;
        assertThat(gate.refreshSource("mcp:docs").state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(gate.call(ctx(CAROL), "mcp:docs.search", "{\"text\":\"x\"}")).isInstanceOf(Executed.class);
    }

    @Test
    void aRefreshThatChangesToolsSwapsThemAndNotifiesOnceWhileOneThatChangesNothingIsSilent() {
        FakeSource docs = new FakeSource("mcp:docs", SourceTool.of("search", "Search the docs.", Effect.READ, TEXT));
        Toolgate gate = gate(docs);
        AtomicInteger changes = new AtomicInteger();
        gate.registry().addListener(changes::incrementAndGet);

        gate.refreshSources();
        assertThat(changes).as("same tools: no list_changed").hasValue(0);

        docs.tools = List.of(SourceTool.of("search", "Search the docs.", Effect.READ, TEXT),
                SourceTool.of("fetch", "Fetch a page.", Effect.READ, TEXT));
        gate.refreshSources();
        assertThat(changes).hasValue(1);
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:docs.fetch", "mcp:docs.search");

        docs.tools = List.of(SourceTool.of("fetch", "Fetch a page, now with a better description.", Effect.READ, TEXT));
        gate.refreshSources();
        assertThat(changes).hasValue(2);
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:docs.fetch");
        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:docs.search", "{\"text\":\"x\"}"))
                .isInstanceOf(UnknownToolException.class);
    }

    @Test
    void aListingIsCachedForItsTtlAndListedAgainAfterIt() throws Exception {
        FakeSource docs = new FakeSource("mcp:docs", SourceTool.of("search", "Search the docs.", Effect.READ, TEXT));
        Toolgate gate = gate(new InMemoryStore(), SecretResolver.none(), Duration.ofMillis(300), docs);
        assertThat(docs.listings).hasValue(1);

        gate.listTools(CAROL);
        gate.listTools(CAROL);
        assertThat(docs.listings).as("inside the TTL the cached listing serves").hasValue(1);

        docs.tools = List.of(SourceTool.of("fetch", "Fetch a page.", Effect.READ, TEXT));
        Thread.sleep(400);
        gate.listTools(CAROL); // starts a background listing and does not wait for it
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline && gate.registry().find("mcp:docs.fetch").isEmpty()) {
            Thread.sleep(10);
        }
        assertThat(docs.listings.get()).isGreaterThanOrEqualTo(2);
        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:docs.fetch");
    }

    @Test
    void secretsASourceWasGivenAreCutOutOfItsResultsAndMessages() {
        String token = "ghp_" + "9".repeat(36);
        FakeSource github = new FakeSource("mcp:github", SourceTool.of("whoami", "Who am I.", Effect.READ, TEXT),
                SourceTool.of("fail", "Fails.", Effect.READ, TEXT));
        github.secretName = "github-token";
        Toolgate gate = gate(new InMemoryStore(), SecretResolver.of(Map.of("github-token", token)), Duration.ofMinutes(5),
                github);

        Executed executed = (Executed) gate.call(ctx(CAROL), "mcp:github.whoami", "{\"text\":\"me\"}");
        assertThat(executed.result().toString()).doesNotContain(token).contains("[redacted]");
        assertThat(gate.findCall(executed.callId()).orElseThrow().resultJson()).doesNotContain(token);

        assertThatThrownBy(() -> gate.call(ctx(CAROL), "mcp:github.fail", "{\"text\":\"me\"}"))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.getMessage()).doesNotContain(token).contains("401 for token");
                    assertThat(gate.findCall(e.callId()).orElseThrow().error()).doesNotContain(token);
                });
    }

    @Test
    void aMissingSecretMakesTheSourceUnavailableAndNamesTheSecret() {
        FakeSource github = new FakeSource("mcp:github", SourceTool.of("whoami", "Who am I.", Effect.READ, TEXT));
        github.secretName = "github-token";
        Toolgate gate = gate(github);

        assertThat(gate.listSources()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(SourceStatus.State.UNAVAILABLE);
            assertThat(s.error()).contains("the secret 'github-token' is not configured");
        });
        assertThat(gate.guide(CAROL)).contains("## mcp:github (Fake mcp:github)")
                .contains("_Unavailable: the secret 'github-token' is not configured.");
    }

    @Test
    void toolsTheGateCannotAcceptAreSkippedAndReportedWithoutFailingTheListing() {
        FakeSource odd = new FakeSource("mcp:odd",
                SourceTool.of("fine", "Fine.", Effect.READ, TEXT),
                SourceTool.of("bad name!", "Spaces.", Effect.READ, TEXT),
                SourceTool.of("array", "Not an object.", Effect.READ, schema("{\"type\":\"array\"}")),
                SourceTool.of("broken", "Schema that does not compile.", Effect.READ,
                        schema("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":17}}}")),
                SourceTool.of("fine", "Twice.", Effect.READ, TEXT));
        Toolgate gate = gate(odd);

        assertThat(gate.listTools(CAROL)).extracting(d -> d.name()).containsExactly("mcp:odd.fine");
        SourceStatus status = gate.listSources().get(0);
        assertThat(status.state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(status.skipped()).hasSize(4).anySatisfy(s -> assertThat(s).startsWith("bad name!:"))
                .anySatisfy(s -> assertThat(s).startsWith("array:").contains("JSON object"))
                .anySatisfy(s -> assertThat(s).startsWith("broken:"))
                .anySatisfy(s -> assertThat(s).isEqualTo("fine: listed twice"));
    }

    @Test
    void badSourceIdsAndDuplicatesFailTheBuildNamingTheSource() {
        assertThatThrownBy(() -> gate(new FakeSource("github")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("invalid source id 'github'");
        assertThatThrownBy(() -> gate(new FakeSource("MCP:github")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("invalid source id");
        assertThatThrownBy(() -> gate(new FakeSource("mcp:a"), new FakeSource("mcp:a")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("'mcp:a' is configured twice");
        assertThatThrownBy(() -> gate().refreshSource("mcp:none"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no tool source 'mcp:none'");
    }

    @Test
    void wordingDefaultsEnumsAndKeyOrderAreNotDrift() {
        ObjectNode reviewed = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                + "\"description\":\"What to restart\",\"enum\":[\"api\",\"db\"]}},\"required\":[\"text\"]}");
        FakeSource ops = new FakeSource("mcp:ops", SourceTool.of("restart", "Restart a service.", Effect.MUTATE, reviewed));
        Toolgate gate = gate(ops);
        CallContext operator = ctx(OPERATOR).withTenant("acme");
        CallContext carol = ctx(CAROL).withTenant("acme");
        gate.setMode(operator, OverrideScope.TENANT, "mcp:ops.restart", Mode.ALLOW);
        String fingerprint = gate.registry().find("mcp:ops.restart").orElseThrow().schemaFingerprint();

        ObjectNode reworded = schema("{\"required\":[\"text\"],\"properties\":{\"text\":{\"enum\":[\"api\",\"db\",\"cache\"],"
                + "\"default\":\"api\",\"description\":\"The service to restart\",\"type\":\"string\"}},\"type\":\"object\"}");
        ops.tools = List.of(SourceTool.of("restart", "Restart one service, gently.", Effect.MUTATE, reworded));
        gate.refreshSources();

        assertThat(gate.registry().find("mcp:ops.restart").orElseThrow().schemaFingerprint()).isEqualTo(fingerprint);
        assertThat(gate.registry().find("mcp:ops.restart").orElseThrow().descriptor().description())
                .as("the new wording is served").isEqualTo("Restart one service, gently.");
        assertThat(gate.call(carol, "mcp:ops.restart", "{\"text\":\"cache\"}")).as("still the reviewed ALLOW")
                .isInstanceOf(Applied.class);
    }

    @Test
    void aSchemaThatDriftsDowngradesAllowToRequireApprovalOnEveryInstanceAndNeverRelaxesDeny() {
        InMemoryStore shared = new InMemoryStore();
        FakeSource a = new FakeSource("mcp:ops", SourceTool.of("restart", "Restart a service.", Effect.MUTATE, TEXT),
                SourceTool.of("purge", "Purge a cache.", Effect.MUTATE, TEXT));
        FakeSource b = new FakeSource("mcp:ops", SourceTool.of("restart", "Restart a service.", Effect.MUTATE, TEXT),
                SourceTool.of("purge", "Purge a cache.", Effect.MUTATE, TEXT));
        Toolgate one = gate(shared, SecretResolver.none(), Duration.ofMinutes(5), a);
        Toolgate two = gate(shared, SecretResolver.none(), Duration.ofMinutes(5), b);
        CallContext operator = ctx(OPERATOR).withTenant("acme");
        CallContext carol = ctx(CAROL).withTenant("acme");
        one.setMode(operator, OverrideScope.TENANT, "mcp:ops.restart", Mode.ALLOW);
        one.setMode(operator, OverrideScope.TENANT, "mcp:ops.purge", Mode.DENY);

        assertThat(two.call(carol, "mcp:ops.restart", "{\"text\":\"api\"}")).as("reviewed ALLOW applies at once")
                .isInstanceOf(Applied.class);

        ObjectNode widened = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                + "\"force\":{\"type\":\"boolean\"}},\"required\":[\"text\"]}");
        List<SourceTool> drifted = List.of(SourceTool.of("restart", "Restart a service.", Effect.MUTATE, widened),
                SourceTool.of("purge", "Purge a cache.", Effect.MUTATE, widened));
        a.tools = drifted;
        b.tools = drifted;
        one.refreshSources();
        two.refreshSources();

        for (Toolgate gate : List.of(one, two)) {
            CallResult restart = gate.call(carol, "mcp:ops.restart", "{\"text\":\"api\",\"force\":true}");
            assertThat(restart).as("drifted ALLOW waits for a person").isInstanceOf(Proposal.class);
            assertThat(gate.findCall(((Proposal) restart).callId()).orElseThrow().mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
            assertThat(gate.call(carol, "mcp:ops.purge", "{\"text\":\"all\"}"))
                    .as("drifted DENY stays DENY").isInstanceOf(Denied.class);
        }
        assertThat(b.calls).as("nothing ran after the drift").containsExactly("restart {\"text\":\"api\"}");

        one.confirmSchema(operator, "mcp:ops.restart");
        one.confirmSchema(operator, "mcp:ops.purge");
        assertThat(two.call(carol, "mcp:ops.restart", "{\"text\":\"db\",\"force\":true}")).isInstanceOf(Applied.class);
        assertThat(two.call(carol, "mcp:ops.purge", "{\"text\":\"all\"}"))
                .as("re-confirming never turns DENY into anything else").isInstanceOf(Denied.class);
        assertThat(two.catalog(carol)).filteredOn(e -> e.descriptor().name().equals("mcp:ops.restart")).singleElement()
                .satisfies(e -> assertThat(e.mode().source()).isEqualTo(ModeSource.TENANT_DEFAULT));
    }

    @Test
    void aListingThatChangesASchemaTellsListenersOncePerChangeOffTheCallPath() {
        FakeSource ops = new FakeSource("mcp:ops", SourceTool.of("restart", "Restart a service.", Effect.MUTATE, TEXT),
                SourceTool.of("status", "Service status.", Effect.READ, TEXT));
        List<ToolDrift> drifts = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        List<String> order = new CopyOnWriteArrayList<>();
        ToolCallListener listener = new ToolCallListener() {
            @Override
            public void onCall(ToolCallEvent event) {
            }

            @Override
            public void onSourceListed(SourceListing listing) {
                order.add("listed");
            }

            @Override
            public void onToolDrifted(ToolDrift drift) {
                drifts.add(drift);
                threads.add(Thread.currentThread().getName());
                order.add("drifted " + drift.toolName());
            }
        };
        ToolCallListener failing = new ToolCallListener() {
            @Override
            public void onCall(ToolCallEvent event) {
            }

            @Override
            public void onToolDrifted(ToolDrift drift) {
                throw new IllegalStateException("listener down");
            }
        };
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .policyCacheTtl(Duration.ZERO).sourceTimings(Duration.ofMinutes(5), Duration.ofMillis(500), Duration.ofSeconds(5))
                .source(ops).listener(failing).listener(listener).build();
        gates.add(gate);
        String before = gate.registry().find("mcp:ops.restart").orElseThrow().schemaFingerprint();
        assertThat(drifts).as("the first listing has nothing to compare with").isEmpty();

        ObjectNode reworded = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                + "\"description\":\"Which one\"}},\"required\":[\"text\"]}");
        ops.tools = List.of(SourceTool.of("restart", "Restart one service.", Effect.MUTATE, reworded),
                SourceTool.of("status", "Service status.", Effect.READ, TEXT));
        gate.refreshSources();
        assertThat(drifts).as("new wording is no drift").isEmpty();

        ObjectNode widened = schema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                + "\"force\":{\"type\":\"boolean\"}},\"required\":[\"text\"]}");
        ops.tools = List.of(SourceTool.of("restart", "Restart a service.", Effect.MUTATE, widened),
                SourceTool.of("status", "Service status.", Effect.READ, TEXT),
                SourceTool.of("stop", "Stop a service.", Effect.MUTATE, widened));
        order.clear();
        gate.refreshSources();
        String after = gate.registry().find("mcp:ops.restart").orElseThrow().schemaFingerprint();
        assertThat(after).isNotEqualTo(before);
        assertThat(drifts).as("one event for the changed tool; none for the unchanged or the new one")
                .containsExactly(new ToolDrift("mcp:ops.restart", "mcp:ops", before, after));
        assertThat(order).as("drift before the listing it came with").containsExactly("drifted mcp:ops.restart", "listed");
        assertThat(threads).as("on a source thread, not the caller's").noneMatch(n -> n.equals(Thread.currentThread().getName()))
                .allMatch(n -> n.startsWith("toolgate-source-"));

        gate.refreshSources();
        CallContext carol = ctx(CAROL).withTenant("acme");
        for (int i = 0; i < 3; i++) {
            gate.call(carol, "mcp:ops.status", "{\"text\":\"api\"}");
        }
        assertThat(drifts).as("once per change: not again on the next listing, nor per call").hasSize(1);

        ops.tools = List.of(SourceTool.of("restart", "Restart a service.", Effect.MUTATE, TEXT));
        gate.refreshSources();
        assertThat(drifts).as("changing back is a change too").hasSize(2)
                .last().isEqualTo(new ToolDrift("mcp:ops.restart", "mcp:ops", after, before));
        assertThatThrownBy(() -> new ToolDrift("t", "mcp:ops", before, before)).isInstanceOf(IllegalArgumentException.class);
    }
}
