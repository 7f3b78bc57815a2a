package dev.toolgate.tool;

import java.util.List;

/**
 * How a plugin contributes tools. List the implementation in
 * {@code META-INF/services/dev.toolgate.tool.ToolProvider} and the gate finds it with
 * {@link java.util.ServiceLoader}; a host can also pass providers to the builder.
 *
 * <p>Each tool is registered as {@code <pluginId>.<tool name>}. Registration is all-or-nothing per
 * provider: a duplicate name, a bad name or a tool without an effect or description rejects the
 * whole provider with an error naming it.
 */
public interface ToolProvider {

    /** The plugin id, 1-32 characters of {@code A-Za-z0-9_-}, such as {@code incident}. */
    String pluginId();

    /** The tools, with names local to the plugin. */
    List<Tool<?, ?>> tools();

    /** A provider for tools built in code. */
    static ToolProvider of(String pluginId, Tool<?, ?>... tools) {
        List<Tool<?, ?>> list = List.of(tools);
        return new ToolProvider() {
            @Override
            public String pluginId() {
                return pluginId;
            }

            @Override
            public List<Tool<?, ?>> tools() {
                return list;
            }

            @Override
            public String toString() {
                return "ToolProvider.of(" + pluginId + ")";
            }
        };
    }
}
