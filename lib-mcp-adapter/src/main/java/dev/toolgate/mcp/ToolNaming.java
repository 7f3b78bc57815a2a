package dev.toolgate.mcp;

import dev.toolgate.tool.RegisteredTool;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assigns the registry's tools their MCP names through {@link McpToolNames}, checking each against
 * MCP's rule and against the others. At start ({@code strict}) a collision or an invalid name throws;
 * later the offending tool is left out with an ERROR log, and a tool already served keeps its name
 * (it goes first), so no tool ever silently takes another's place. Code tools go before source tools.
 */
final class ToolNaming {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final McpToolNames names;
    /** The gate's name of each registry tool served now, by MCP name. */
    private Map<String, String> served = Map.of();

    ToolNaming(McpToolNames names) {
        this.names = names;
    }

    /**
     * The tools to serve by MCP name; {@code taken} holds names of the server's own tools (the apply
     * tool), which a registry tool may not take.
     *
     * @throws IllegalStateException when {@code strict} and two tools collide or a name is invalid
     */
    synchronized Map<String, RegisteredTool> assign(List<RegisteredTool> tools, Set<String> taken, boolean strict) {
        Map<String, String> before = served;
        List<RegisteredTool> ordered = new ArrayList<>(tools);
        ordered.sort(Comparator.comparing((RegisteredTool tool) -> !before.containsValue(tool.name()))
                .thenComparing(tool -> tool.name().indexOf(':') >= 0));
        Map<String, RegisteredTool> byName = new LinkedHashMap<>();
        for (RegisteredTool tool : ordered) {
            String wire;
            try {
                wire = names.mcpName(tool.name());
            } catch (RuntimeException e) {
                refuse(strict, "Tool " + tool.name() + " from " + tool.source() + " has no MCP name: the name mapping failed ("
                        + e + ")");
                continue;
            }
            if (!McpToolNames.isValid(wire)) {
                refuse(strict, "Tool " + tool.name() + " from " + tool.source() + " maps to the MCP name '" + wire
                        + "', which is not 1-128 characters of A-Za-z0-9_.-");
                continue;
            }
            if (taken.contains(wire)) {
                // as before the mapping existed: logged, never fatal
                LOG.error("Tool {} from {} has the name of the MCP apply tool; it is not served over MCP. "
                        + "Rename it or choose another applyToolName", tool.name(), tool.source());
                continue;
            }
            RegisteredTool other = byName.get(wire);
            if (other != null) {
                refuse(strict, "Tools " + other.name() + " and " + tool.name() + " both map to the MCP name " + wire + "; "
                                + tool.name() + " from " + tool.source() + " is not served over MCP. Rename one or change toolNames");
                continue;
            }
            byName.put(wire, tool);
        }
        Map<String, String> now = new HashMap<>();
        byName.forEach((wire, tool) -> now.put(wire, tool.name()));
        served = Map.copyOf(now);
        return byName;
    }

    private static void refuse(boolean strict, String message) {
        if (strict) {
            throw new IllegalStateException(message);
        }
        LOG.error(message);
    }
}
