package dev.toolgate.examples.plugin;

import java.time.Instant;

/** An incident on a catalog system. */
public record Incident(String id, String systemId, String title, Severity severity, IncidentStatus status, Instant openedAt) {

    Incident with(String newTitle, Severity newSeverity, IncidentStatus newStatus) {
        return new Incident(id, systemId, newTitle, newSeverity, newStatus, openedAt);
    }
}
