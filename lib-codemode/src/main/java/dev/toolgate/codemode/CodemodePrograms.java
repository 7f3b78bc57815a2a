package dev.toolgate.codemode;

import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramProvider;
import java.util.Map;

/**
 * Contributes the program {@value Codemode#RUN}, which runs a script as a durable execution; listed
 * in {@code META-INF/services/dev.toolgate.execution.ProgramProvider}. Public for ServiceLoader only:
 * hosts use {@link Codemode#programs()}.
 */
public final class CodemodePrograms implements ProgramProvider {

    /** For ServiceLoader. */
    public CodemodePrograms() {
    }

    @Override
    public Map<String, Program> programs() {
        return Codemode.programMap();
    }
}
