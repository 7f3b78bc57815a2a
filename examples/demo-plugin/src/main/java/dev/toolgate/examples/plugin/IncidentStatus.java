package dev.toolgate.examples.plugin;

/** Where an incident is in its life. */
public enum IncidentStatus {
    OPEN, MITIGATED, RESOLVED
}
