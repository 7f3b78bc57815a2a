package dev.toolgate.examples.plugin;

import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramException;
import dev.toolgate.execution.ProgramProvider;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The plugin's durable programs, registered only through
 * {@code META-INF/services/dev.toolgate.execution.ProgramProvider}.
 *
 * <p>{@code incident.escalate} opens an incident on a catalog system, finds the team that owns the
 * system, and raises the incident to CRITICAL for that team: three governed steps. With the default
 * policy, opening the incident needs consent, so the run pauses there until someone approves; then it
 * replays (the catalog read comes from its log) and goes on. Its input is typed: a run started without
 * a system, a title or a severity is refused before it starts, naming what is missing.
 */
public final class IncidentPrograms implements ProgramProvider {

    /** What {@code incident.escalate} takes. */
    public record Escalation(String systemId, String title, Severity severity) {
    }

    /** What it returns. */
    public record Escalated(String incident, String owner, Severity severity) {
    }

    @Override
    public Map<String, Program> programs() {
        return Map.of("incident.escalate", escalate());
    }

    static Program escalate() {
        return Program.withInput(Escalation.class, (run, in) -> {
            String owner = null;
            for (JsonNode system : run.call("catalog.listSystems", Map.of())) {
                if (system.path("id").asString("").equals(in.systemId())) {
                    owner = system.path("owner").asString(null);
                }
            }
            if (owner == null) {
                throw new ProgramException("no catalog system '" + in.systemId() + "'");
            }
            Incident incident = run.call("incident.create",
                    Map.of("systemId", in.systemId(), "title", in.title(), "severity", in.severity()), Incident.class);
            run.log("opened " + incident.id() + " for " + owner);
            Incident raised = run.call("incident.update", Map.of("id", incident.id(), "severity", Severity.CRITICAL),
                    Incident.class);
            run.log("raised " + raised.id() + " to " + raised.severity());
            return new Escalated(raised.id(), owner, raised.severity());
        });
    }
}
