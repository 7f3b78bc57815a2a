package dev.toolgate.execution;

import java.util.Map;

/**
 * Contributes programs by name, found with {@link java.util.ServiceLoader} through
 * {@code META-INF/services/dev.toolgate.execution.ProgramProvider}, like a
 * {@link dev.toolgate.tool.ToolProvider} contributes tools. Names are like tool names, for example
 * {@code incident.escalate}; a name registered twice fails the build.
 */
public interface ProgramProvider {

    /** The programs, by name. */
    Map<String, Program> programs();
}
