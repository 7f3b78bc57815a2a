package dev.toolgate.examples.plugin;

/** A system in the service catalog. */
public record CatalogSystem(String id, String name, String owner) {
}
