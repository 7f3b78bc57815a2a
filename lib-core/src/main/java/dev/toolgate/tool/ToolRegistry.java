package dev.toolgate.tool;

import dev.toolgate.json.Json;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tools a gate knows, by qualified name. Registration validates each tool at boot: names are
 * MCP-safe (1-64 characters of {@code A-Za-z0-9_.-}), a name is registered once across all plugins,
 * and every tool has a description and an effect. Implementations are thread-safe; readers always see
 * a consistent snapshot.
 *
 * <p>The gate discovers {@link ToolProvider}s with {@link java.util.ServiceLoader} and registers them
 * here. A host may supply its own registry (to the builder, or through
 * {@code META-INF/services/dev.toolgate.tool.ToolRegistry}).
 */
public interface ToolRegistry {

    /**
     * Registers every tool of a provider, all or nothing.
     *
     * @return the registered tools
     * @throws ToolDefinitionException naming the provider (and for a duplicate, both providers)
     */
    List<RegisteredTool> register(ToolProvider provider);

    /** Registers one tool for a plugin. */
    default RegisteredTool register(String pluginId, Tool<?, ?> tool) {
        return register(ToolProvider.of(pluginId, tool)).get(0);
    }

    /**
     * Replaces every tool of the provider's plugin (or tool source) with the provider's tools in one
     * step, all or nothing. Listeners are told only if something changed: a tool added or removed, or
     * a tool whose descriptor differs. Returns the provider's tools as registered.
     *
     * <p>The default unregisters and registers, which readers can see as two steps; the standard
     * registry swaps its snapshot once.
     */
    default List<RegisteredTool> replace(ToolProvider provider) {
        unregisterPlugin(provider.pluginId());
        return register(provider);
    }

    /**
     * Removes every tool of a plugin.
     *
     * @return how many tools were removed
     */
    int unregisterPlugin(String pluginId);

    /** The tool with this qualified name. */
    Optional<RegisteredTool> find(String name);

    /** Every registered tool, sorted by name. */
    List<RegisteredTool> tools();

    /** Calls {@code listener} after every change (for MCP {@code tools/list_changed}). */
    void addListener(Runnable listener);

    /** Stops calling {@code listener}. */
    void removeListener(Runnable listener);

    /** A new empty registry using Toolgate's JSON mapper. */
    static ToolRegistry create() {
        return create(Json.mapper());
    }

    /** A new empty registry generating schemas and binding inputs with {@code mapper}. */
    static ToolRegistry create(JsonMapper mapper) {
        return new DefaultToolRegistry(mapper);
    }
}
