package dev.toolgate.mcp;

import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * How the gate's qualified tool names become the names MCP clients see, for hosts and clients that
 * do not accept some characters (many reject dots: {@code incident.create} becomes
 * {@code incident_create} with {@code replacing('.', '_')}). Set with
 * {@link McpServerBuilder#toolNames(McpToolNames)}; the default is {@link #standard()}.
 *
 * <p>The mapping must be reversible in practice: the server keeps a table from each served MCP name
 * back to the gate's name, so a call by MCP name runs the gate's tool. Two tools that map to one MCP
 * name are a collision: when the server starts, that is an {@link IllegalStateException} naming both
 * tools; for a tool registered later, that tool is left out (an ERROR is logged) and the tool served
 * under the name keeps it. A mapped name must follow MCP's tool-name rule ({@link #isValid}), else the
 * same happens. The mapping applies to the registry's tools and to the default name of the apply
 * tool ({@link ToolgateMcpServer#APPLY_TOOL}, unless {@code applyToolName} set one); the run and
 * decision tools of durable executions ({@code run.<program>}, {@code toolgate.approve},
 * {@code toolgate.reject}, {@code toolgate.rollback}) keep their names.
 */
@FunctionalInterface
public interface McpToolNames {

    /** MCP's tool-name rule (2025-11-25): 1 to 128 of {@code A-Z a-z 0-9 _ - .}, case-sensitive. */
    Pattern VALID = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    /**
     * The MCP name of the tool the gate names {@code gateName} (such as {@code incident.create} or,
     * for a source tool, {@code mcp:github.create_issue}); never null.
     */
    String mcpName(String gateName);

    /**
     * The default: the gate's name, with the colon after a source's kind as an underscore
     * ({@code mcp:github.create_issue} becomes {@code mcp_github.create_issue}); code tools keep
     * their names.
     */
    static McpToolNames standard() {
        return gateName -> gateName.replace(':', '_');
    }

    /**
     * {@link #standard()}, then every {@code from} replaced by {@code to}, such as
     * {@code replacing('.', '_')}.
     *
     * @throws IllegalArgumentException if {@code to} is not allowed in an MCP tool name
     */
    static McpToolNames replacing(char from, char to) {
        if (!isValid(String.valueOf(to))) {
            throw new IllegalArgumentException("the replacement must be one of A-Z a-z 0-9 _ - ., got '" + to + "'");
        }
        return gateName -> standard().mcpName(gateName).replace(from, to);
    }

    /** {@link #standard()}, then {@code mapping} (for instance a table of a few renamed tools). */
    static McpToolNames of(UnaryOperator<String> mapping) {
        Objects.requireNonNull(mapping, "mapping");
        return gateName -> mapping.apply(standard().mcpName(gateName));
    }

    /** Whether {@code name} follows MCP's tool-name rule. */
    static boolean isValid(String name) {
        return name != null && VALID.matcher(name).matches();
    }
}
