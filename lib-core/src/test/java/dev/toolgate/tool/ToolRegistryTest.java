package dev.toolgate.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {

    record Input(String id) {
    }

    static Tool<Input, String> tool(String name) {
        return Tool.builder(name, Input.class).description("does " + name).effect(Effect.READ).execute((in, ctx) -> "ok").build();
    }

    /** A provider class of its own, so errors can name it. */
    static final class AlphaProvider implements ToolProvider {
        @Override
        public String pluginId() {
            return "shared";
        }

        @Override
        public List<Tool<?, ?>> tools() {
            return List.of(tool("list"));
        }
    }

    static final class BetaProvider implements ToolProvider {
        @Override
        public String pluginId() {
            return "shared";
        }

        @Override
        public List<Tool<?, ?>> tools() {
            return List.of(tool("get"), tool("list"));
        }
    }

    @Test
    void namesAreQualifiedWithThePluginIdAndListedInOrder() {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(ToolProvider.of("incident", tool("list"), tool("get")));
        registry.register(ToolProvider.of("catalog", tool("listSystems")));

        assertThat(registry.tools()).extracting(RegisteredTool::name)
                .containsExactly("catalog.listSystems", "incident.get", "incident.list");
        assertThat(registry.find("incident.get")).get().satisfies(t -> {
            assertThat(t.pluginId()).isEqualTo("incident");
            assertThat(t.tool().name()).isEqualTo("get");
        });
        assertThat(registry.find("get")).isEmpty();
    }

    @Test
    void aDuplicateAcrossProvidersIsRejectedNamingBothAndNothingOfTheSecondIsRegistered() {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(new AlphaProvider());

        assertThatThrownBy(() -> registry.register(new BetaProvider()))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("Duplicate tool 'shared.list'")
                .hasMessageContaining(AlphaProvider.class.getName())
                .hasMessageContaining(BetaProvider.class.getName());
        assertThat(registry.tools()).extracting(RegisteredTool::name).containsExactly("shared.list");
    }

    @Test
    void badNamesAreRejected() {
        assertThatThrownBy(() -> tool("has space")).isInstanceOf(ToolDefinitionException.class).hasMessageContaining("MCP-safe");
        assertThatThrownBy(() -> tool("")).isInstanceOf(ToolDefinitionException.class);
        assertThatThrownBy(() -> tool("x".repeat(129))).isInstanceOf(ToolDefinitionException.class);
        assertThatThrownBy(() -> tool("ünïcode")).isInstanceOf(ToolDefinitionException.class);

        ToolRegistry registry = ToolRegistry.create();
        assertThatThrownBy(() -> registry.register(ToolProvider.of("bad.plugin", tool("a"))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("invalid plugin id 'bad.plugin'");
        assertThatThrownBy(() -> registry.register(ToolProvider.of("toolgate", tool("a"))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("reserved");
        assertThatThrownBy(() -> registry.register(ToolProvider.of("p".repeat(30), tool("x".repeat(40)))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("at most 64");
        assertThatThrownBy(() -> registry.register(ToolProvider.of("p", tool("x".repeat(65)))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("at most 64");
        assertThatThrownBy(() -> registry.register(ToolProvider.of("mcp:github", tool("x".repeat(118)))))
                .as("a source's tools keep remote names up to MCP's 128")
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("at most 128");
        assertThatThrownBy(() -> registry.register(ToolProvider.of("MCP:github", tool("a"))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("invalid plugin id");
        assertThat(registry.tools()).isEmpty();
        assertThat(registry.register(ToolProvider.of("mcp:github", tool("x".repeat(117))))).hasSize(1);
    }

    @Test
    void replaceSwapsAPluginsToolsAtOnceAndTellsListenersOnlyOfAChange() {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(ToolProvider.of("other", tool("keep")));
        registry.register(ToolProvider.of("mcp:docs", tool("a"), tool("b")));
        java.util.concurrent.atomic.AtomicInteger changes = new java.util.concurrent.atomic.AtomicInteger();
        registry.addListener(changes::incrementAndGet);

        registry.replace(ToolProvider.of("mcp:docs", tool("b"), tool("a")));
        assertThat(changes).as("the same tools in another order are no change").hasValue(0);

        registry.replace(ToolProvider.of("mcp:docs", tool("a"), tool("c")));
        assertThat(changes).hasValue(1);
        assertThat(registry.tools()).extracting(RegisteredTool::name).containsExactly("mcp:docs.a", "mcp:docs.c", "other.keep");

        assertThatThrownBy(() -> registry.replace(ToolProvider.of("mcp:docs", tool("d"), tool("d"))))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("Duplicate");
        assertThat(registry.tools()).as("a failed replace changes nothing")
                .extracting(RegisteredTool::name).containsExactly("mcp:docs.a", "mcp:docs.c", "other.keep");

        registry.replace(ToolProvider.of("mcp:docs"));
        assertThat(registry.tools()).extracting(RegisteredTool::name).containsExactly("other.keep");
        assertThat(changes).hasValue(2);
    }

    @Test
    void aToolWithoutEffectOrDescriptionIsRejectedNamingTheProvider() {
        ToolProvider noEffect = new ToolProvider() {
            @Override
            public String pluginId() {
                return "broken";
            }

            @Override
            public List<Tool<?, ?>> tools() {
                return List.of(Tool.builder("delete", Input.class).description("Deletes").execute((in, ctx) -> "x").build());
            }

            @Override
            public String toString() {
                return "BrokenProvider";
            }
        };
        assertThatThrownBy(() -> ToolRegistry.create().register(noEffect))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("BrokenProvider")
                .hasMessageContaining("Tool 'delete' declares no effect")
                .hasMessageContaining("never infers");
        assertThatThrownBy(() -> Tool.builder("a", Input.class).effect(Effect.READ).execute((in, ctx) -> "x").build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("has no description");
        assertThatThrownBy(() -> Tool.builder("a", Input.class).description(" ").effect(Effect.READ).execute((in, ctx) -> "x").build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("has no description");
    }

    @Test
    void otherDefinitionErrorsAreCaughtAtBuildOrRegistration() {
        assertThatThrownBy(() -> Tool.builder("a", Input.class).description("d").effect(Effect.READ).build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("no execute");
        assertThatThrownBy(() -> Tool.builder("a", Input.class).description("d").effect(Effect.READ)
                .execute((in, ctx) -> "x").revert((in, out, ctx) -> { }).build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("READ");
        assertThatThrownBy(() -> Tool.builder("a", Input.class).description("d").effect(Effect.READ).requires("has space")
                .execute((in, ctx) -> "x").build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("invalid access rule");
        Tool<String, String> stringInput = Tool.builder("a", String.class).description("d").effect(Effect.READ)
                .execute((in, ctx) -> in).build();
        assertThatThrownBy(() -> ToolRegistry.create().register("p", stringInput))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("does not map to a JSON object");
    }

    @Test
    void aProviderThatThrowsIsReportedWithItsName() {
        ToolProvider exploding = new ToolProvider() {
            @Override
            public String pluginId() {
                return "boom";
            }

            @Override
            public List<Tool<?, ?>> tools() {
                throw new IllegalStateException("no database");
            }
        };
        assertThatThrownBy(() -> ToolRegistry.create().register(exploding))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("plugin 'boom'").hasMessageContaining("no database");
    }

    @Test
    void changesNotifyListenersAndPluginsCanBeRemoved() {
        ToolRegistry registry = ToolRegistry.create();
        AtomicInteger changes = new AtomicInteger();
        Runnable listener = changes::incrementAndGet;
        registry.addListener(listener);
        registry.register(ToolProvider.of("a", tool("x"), tool("y")));
        registry.register("b", tool("z"));
        assertThat(registry.unregisterPlugin("a")).isEqualTo(2);
        assertThat(registry.unregisterPlugin("missing")).isZero();
        registry.removeListener(listener);
        registry.register("c", tool("w"));

        assertThat(changes).hasValue(3);
        assertThat(registry.tools()).extracting(RegisteredTool::name).containsExactly("b.z", "c.w");
    }
}
