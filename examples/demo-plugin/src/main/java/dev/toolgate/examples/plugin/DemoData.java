package dev.toolgate.examples.plugin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's "host application": a catalog of systems and an incident list, in memory and
 * thread-safe. One shared instance, because the plugin's tool providers are created by
 * {@link java.util.ServiceLoader} and the demo host reads the same data.
 */
public final class DemoData {

    private static final DemoData SHARED = new DemoData();

    private final Map<String, CatalogSystem> systems = new ConcurrentSkipListMap<>();
    private final Map<String, Incident> incidents = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();

    DemoData() {
        for (CatalogSystem system : List.of(
                new CatalogSystem("db", "Primary database", "platform-team"),
                new CatalogSystem("api", "Public API", "api-team"),
                new CatalogSystem("web", "Web frontend", "web-team"),
                new CatalogSystem("billing", "Billing service", "payments-team"))) {
            systems.put(system.id(), system);
        }
        create("api", "Elevated 5xx rate on /orders", Severity.HIGH);
    }

    /** The data every demo tool works on. */
    public static DemoData shared() {
        return SHARED;
    }

    public List<CatalogSystem> systems() {
        return List.copyOf(systems.values());
    }

    public Optional<CatalogSystem> system(String id) {
        return Optional.ofNullable(systems.get(id));
    }

    public List<Incident> incidents() {
        List<Incident> all = new ArrayList<>(incidents.values());
        all.sort(Comparator.comparing(Incident::openedAt).thenComparing(Incident::id));
        return all;
    }

    public Optional<Incident> incident(String id) {
        return Optional.ofNullable(incidents.get(id));
    }

    public Incident create(String systemId, String title, Severity severity) {
        Incident incident = new Incident("INC-" + sequence.incrementAndGet(), systemId, title, severity,
                IncidentStatus.OPEN, Instant.now());
        incidents.put(incident.id(), incident);
        return incident;
    }

    public Incident replace(Incident incident) {
        incidents.put(incident.id(), incident);
        return incident;
    }

    public boolean delete(String id) {
        return incidents.remove(id) != null;
    }
}
