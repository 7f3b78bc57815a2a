package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.tool.RegisteredTool;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Which served tools may be called as MCP tasks, and what such a call would start for a principal:
 * the tools that may wait for consent (MUTATE and DESTRUCTIVE tools, tools that start runs, the
 * programs' {@code run.*} tools), decided on the gate's names behind the MCP names.
 */
final class TaskTargets {

    private final Toolgate toolgate;
    private final String applyToolName;
    private final ClientConsent consent;
    private final RunTools runTools;
    private final UnaryOperator<String> gateName;

    TaskTargets(Toolgate toolgate, String applyToolName, ClientConsent consent, RunTools runTools, UnaryOperator<String> gateName) {
        this.toolgate = toolgate;
        this.applyToolName = applyToolName;
        this.consent = consent;
        this.runTools = runTools;
        this.gateName = gateName;
    }

    /**
     * What a task-augmented call of a tool would start, for one principal: UNKNOWN (unknown or hidden:
     * answered exactly as an unknown tool), NOT_A_TASK (offered, but it never waits: a read, the apply
     * and decision tools), TOOL (a governed tool that proposes or starts a run), PROGRAM ({@code run.<program>}).
     */
    enum Target { UNKNOWN, NOT_A_TASK, TOOL, PROGRAM }

    /** What calling {@code wire} as a task would start for {@code principal}; see {@link Target}. */
    Target target(Principal principal, String wire) {
        String name = gateName.apply(wire);
        if (principal == null || name == null) {
            return Target.UNKNOWN;
        }
        if ((name.equals(applyToolName) && consent.clientDecides()) || (RunTools.isDecision(name) && runTools.handles(name))) {
            return mayMutate(principal) ? Target.NOT_A_TASK : Target.UNKNOWN;
        }
        if (runTools.handles(name) && toolgate.registry().find(name).isEmpty()) {
            return toolgate.resolveTools(principal).isEmpty() ? Target.UNKNOWN : Target.PROGRAM;
        }
        return visible(principal, name).map(tool -> mayWait(wire) ? Target.TOOL : Target.NOT_A_TASK)
                .orElse(Target.UNKNOWN);
    }

    /**
     * True if the tool served as {@code wire} may wait for consent, so it may be called as a task:
     * MUTATE and DESTRUCTIVE tools, tools that start runs, and the programs' run tools. Principal-blind
     * (it describes the tool in {@code tools/list}); {@link #target} checks the principal.
     */
    boolean mayWait(String wire) {
        String name = gateName.apply(wire);
        if (name == null || RunTools.isDecision(name) || (name.equals(applyToolName) && consent.clientDecides())) {
            return false;
        }
        Optional<RegisteredTool> tool = toolgate.registry().find(name);
        if (tool.isPresent()) {
            return tool.get().tool().effect().mutates() || runTools.startsRuns(name);
        }
        return runTools.handles(name);
    }

    /** True if the registered tool {@code gateName} starts a durable run when called. */
    boolean startsRuns(String gateName) {
        return runTools.startsRuns(gateName);
    }

    private Optional<RegisteredTool> visible(Principal principal, String name) {
        return toolgate.registry().find(name).filter(tool -> toolgate.resolver().isAllowed(principal, tool));
    }

    private boolean mayMutate(Principal principal) {
        return toolgate.resolveTools(principal).stream().anyMatch(tool -> tool.effect().mutates());
    }
}
