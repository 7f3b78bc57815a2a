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
    /** The version each incident had before its last update, for undoing that update. */
    private final Map<String, Incident> previous = new ConcurrentHashMap<>();
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

    public synchronized Incident replace(Incident incident) {
        Incident before = incidents.put(incident.id(), incident);
        if (before != null) {
            previous.put(incident.id(), before);
        }
        return incident;
    }

    /**
     * Undoes the update that produced {@code updated}: the incident goes back to the version before
     * it, if it is still exactly {@code updated} (a later change is not overwritten).
     *
     * @throws IllegalStateException if the incident is gone or changed since
     */
    public synchronized Incident undoUpdate(Incident updated) {
        Incident current = incidents.get(updated.id());
        Incident before = previous.get(updated.id());
        if (current == null || before == null || !current.equals(updated)) {
            throw new IllegalStateException("incident " + updated.id() + " changed since that update; undo it by hand");
        }
        incidents.put(before.id(), before);
        previous.remove(before.id());
        return before;
    }

    public boolean delete(String id) {
        previous.remove(id);
        return incidents.remove(id) != null;
    }
}
