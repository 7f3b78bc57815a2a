package dev.toolgate.examples.plugin;

/** How bad an incident is. */
public enum Severity {
    LOW, MEDIUM, HIGH, CRITICAL
}
