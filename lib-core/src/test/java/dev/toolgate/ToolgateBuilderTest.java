package dev.toolgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreProvider;
import dev.toolgate.spi.StoreSettings;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolProvider;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Building a gate: ServiceLoader discovery of every component, explicit configuration winning. */
class ToolgateBuilderTest {

    @TempDir
    Path services;

    public static final class PingTools implements ToolProvider {
        @Override
        public String pluginId() {
            return "ping";
        }

        @Override
        public List<Tool<?, ?>> tools() {
            return List.of(Tool.builder("ping", NoInput.class).description("Ping").effect(Effect.READ).requires("ping.use")
                    .execute((in, ctx) -> "pong").build());
        }
    }

    public static final class OtherPingTools implements ToolProvider {
        @Override
        public String pluginId() {
            return "ping";
        }

        @Override
        public List<Tool<?, ?>> tools() {
            return new PingTools().tools();
        }
    }

    @Test
    void aHostCanKeepEveryToolOnTheGatesThreadsWhateverItDeclares() {
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        Tool<NoInput, String> here = Tool.builder("here", NoInput.class).description("Asks for the caller's thread")
                .effect(Effect.READ).requires("ping.use").onCallerThread(true)
                .execute((in, ctx) -> {
                    ranOn.add(Thread.currentThread());
                    return "here";
                }).build();
        CallContext ctx = CallContext.of(Principal.user("u", "ping.use"));
        for (boolean allowed : new boolean[] {true, false}) {
            try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                    .provider(ToolProvider.of("ping", here)).sweepInterval(Duration.ZERO).toolsOnCallerThread(allowed).build()) {
                gate.call(ctx, "ping.here", "{}");
            }
        }
        assertThat(ranOn).hasSize(2);
        assertThat(ranOn.get(0)).as("allowed (the default)").isSameAs(Thread.currentThread());
        assertThat(ranOn.get(1)).as("refused by the host").isNotSameAs(Thread.currentThread())
                .satisfies(t -> assertThat(t.getName()).startsWith("toolgate-tool-"));
        assertThat(dev.toolgate.call.GateSettings.defaults().toolsOnCallerThread()).isTrue();
    }

    /** A resolver that allows nothing: proves which resolver a gate uses. */
    public static final class DenyAllResolver implements Resolver {
        @Override
        public AccessDecision decide(Principal principal, Guarded tool) {
            return AccessDecision.missing(java.util.Set.of("never"));
        }
    }

    public static final class OtherResolver implements Resolver {
        @Override
        public AccessDecision decide(Principal principal, Guarded tool) {
            return Resolver.standard().decide(principal, tool);
        }
    }

    public static final class TinyBudget implements ToolBudget {
        @Override
        public BudgetLimit limitFor(Principal principal) {
            return BudgetLimit.of(1, Duration.ofMinutes(1));
        }
    }

    public static final class RecordingListener implements ToolCallListener {
        static final List<ToolCallEvent> EVENTS = new CopyOnWriteArrayList<>();

        @Override
        public void onCall(ToolCallEvent event) {
            EVENTS.add(event);
        }
    }

    public static final class CountingStoreProvider implements StoreProvider {
        static final AtomicBoolean OPENED = new AtomicBoolean();
        static final AtomicBoolean CLOSED = new AtomicBoolean();
        static volatile StoreSettings settings;

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public int priority() {
            return 10;
        }

        @Override
        public ToolgateStore open(StoreSettings given) {
            OPENED.set(true);
            settings = given;
            InMemoryStore delegate = new InMemoryStore();
            return new ToolgateStore() {
                @Override
                public dev.toolgate.spi.CallStore calls() {
                    return delegate.calls();
                }

                @Override
                public dev.toolgate.spi.PolicyStore policies() {
                    return delegate.policies();
                }

                @Override
                public void close() {
                    CLOSED.set(true);
                }
            };
        }
    }

    private ClassLoader loaderWith(Map<Class<?>, List<Class<?>>> registrations) throws IOException {
        Path dir = Files.createDirectories(services.resolve("META-INF/services"));
        for (var entry : registrations.entrySet()) {
            Files.writeString(dir.resolve(entry.getKey().getName()),
                    String.join("\n", entry.getValue().stream().map(Class::getName).toList()) + "\n");
        }
        return new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader());
    }

    private static final Principal USER = Principal.user("u", "ping.use");

    @Test
    void everyComponentIsDiscoveredWhenNotSetExplicitly() throws IOException {
        ClassLoader loader = loaderWith(Map.of(
                ToolProvider.class, List.of(PingTools.class),
                Resolver.class, List.of(DenyAllResolver.class),
                ToolBudget.class, List.of(TinyBudget.class),
                ToolCallListener.class, List.of(RecordingListener.class),
                StoreProvider.class, List.of(CountingStoreProvider.class)));
        try (Toolgate gate = Toolgate.builder().classLoader(loader).storeSetting("counting.x", "1").build()) {
            assertThat(gate.registry().find("ping.ping")).isPresent();
            assertThat(gate.resolver()).isInstanceOf(DenyAllResolver.class);
            assertThat(gate.listTools(USER)).isEmpty();
            assertThat(CountingStoreProvider.OPENED).isTrue();
            assertThat(CountingStoreProvider.settings.get("counting.x")).contains("1");
        }
        assertThat(CountingStoreProvider.CLOSED).as("a store the gate opened is closed with it").isTrue();

        try (Toolgate gate = Toolgate.builder().classLoader(loader).resolver(Resolver.standard()).build()) {
            gate.call(CallContext.of(USER), "ping.ping", "{}");
            assertThatThrownBy(() -> gate.call(CallContext.of(USER), "ping.ping", "{}"))
                    .as("the discovered budget allows one call").isInstanceOf(dev.toolgate.budget.BudgetExceededException.class);
        }
    }

    @Test
    void explicitConfigurationWinsOverDiscovery() throws IOException {
        ClassLoader loader = loaderWith(Map.of(
                ToolProvider.class, List.of(PingTools.class),
                Resolver.class, List.of(DenyAllResolver.class),
                ToolBudget.class, List.of(TinyBudget.class),
                ToolCallListener.class, List.of(RecordingListener.class)));
        RecordingListener.EVENTS.clear();
        InMemoryStore store = new InMemoryStore();
        try (Toolgate gate = Toolgate.builder().classLoader(loader).resolver(Resolver.standard())
                .budget(ToolBudget.unlimited()).store(store).build()) {
            assertThat(gate.listTools(USER)).extracting(ToolDescriptor::name).containsExactly("ping.ping");
            for (int i = 0; i < 3; i++) {
                gate.call(CallContext.of(USER), "ping.ping", "{}");
            }
            assertThat(RecordingListener.EVENTS).as("discovered listeners still join").hasSize(3);
        }
        assertThat(store.calls().query(dev.toolgate.audit.CallQuery.latest(10))).as("an explicit store stays open").hasSize(3);
    }

    @Test
    void discoveryCanBeTurnedOff() throws IOException {
        ClassLoader loader = loaderWith(Map.of(ToolProvider.class, List.of(PingTools.class),
                Resolver.class, List.of(DenyAllResolver.class)));
        try (Toolgate gate = Toolgate.builder().classLoader(loader).discoverTools(false).discoverComponents(false)
                .tools("manual", new PingTools().tools().get(0)).build()) {
            assertThat(gate.registry().tools()).extracting(t -> t.name()).containsExactly("manual.ping");
            assertThat(gate.resolver()).isSameAs(Resolver.standard());
        }
    }

    @Test
    void ambiguousOrBrokenDiscoveryFailsTheBuildClearly() throws IOException {
        ClassLoader twoResolvers = loaderWith(Map.of(Resolver.class, List.of(DenyAllResolver.class, OtherResolver.class)));
        assertThatThrownBy(() -> Toolgate.builder().classLoader(twoResolvers).discoverTools(false).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Several dev.toolgate.access.Resolver");

        ClassLoader duplicates = loaderWith(Map.of(ToolProvider.class, List.of(PingTools.class, OtherPingTools.class)));
        assertThatThrownBy(() -> Toolgate.builder().classLoader(duplicates).discoverComponents(false).build())
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining(PingTools.class.getName()).hasMessageContaining(OtherPingTools.class.getName());
    }

    @Test
    void badSettingsAreRejectedAtBuild() {
        assertThatThrownBy(() -> Toolgate.builder().discoverComponents(false).discoverTools(false)
                .proposalTtl(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interactiveTtl");
        assertThatThrownBy(() -> Toolgate.builder().discoverComponents(false).discoverTools(false)
                .maxPendingPerSession(0).build()).isInstanceOf(IllegalArgumentException.class);
    }
}
