package dev.toolgate.springai;

import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A small incident tracker governed by the gate: list (READ), create (MUTATE), purge (DESTRUCTIVE, admins). */
final class Incidents {

    static final String READ = "incident.read";
    static final String WRITE = "incident.write";
    static final String ADMIN = "incident.admin";

    record Incident(String id, String title, String severity) {
    }

    record NewIncident(String title, String severity) {
    }

    record Query(String severity) {
    }

    record Retitle(String id, String title) {
    }

    final Map<String, Incident> byId = new ConcurrentHashMap<>();
    final AtomicInteger executions = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();

    List<Tool<?, ?>> tools() {
        Tool<?, ?> list = Tool.builder("list", Query.class)
                .description("Lists incidents, optionally of one severity")
                .effect(Effect.READ)
                .requires(READ)
                .execute((Query q, dev.toolgate.tool.ToolContext c) -> {
                    reads.incrementAndGet();
                    return byId.values().stream()
                            .filter(i -> q == null || q.severity() == null || q.severity().equals(i.severity()))
                            .sorted(java.util.Comparator.comparing(Incident::id)).toList();
                })
                .build();
        Tool<?, ?> create = Tool.builder("create", NewIncident.class)
                .description("Opens an incident")
                .effect(Effect.MUTATE)
                .requires(WRITE)
                .dryRun((NewIncident in, dev.toolgate.tool.ToolContext c) ->
                        Preview.<NewIncident>of("Open incident '" + in.title() + "' (" + in.severity() + ")"))
                .execute((NewIncident in, dev.toolgate.tool.ToolContext c) -> {
                    executions.incrementAndGet();
                    Incident incident = new Incident("INC-" + ids.incrementAndGet(), in.title(), in.severity());
                    byId.put(incident.id(), incident);
                    return incident;
                })
                .build();
        Tool<?, ?> purge = Tool.builder("purge", Query.class)
                .description("Deletes every incident")
                .effect(Effect.DESTRUCTIVE)
                .requires(ADMIN)
                .dryRun((Query q, dev.toolgate.tool.ToolContext c) -> Preview.<Query>of("Delete all " + byId.size() + " incidents"))
                .execute((Query q, dev.toolgate.tool.ToolContext c) -> {
                    executions.incrementAndGet();
                    byId.clear();
                    return Map.of("deleted", true);
                })
                .build();
        Tool<?, ?> retitle = Tool.builder("retitle", Retitle.class)
                .description("Renames an incident")
                .effect(Effect.MUTATE)
                .requires(WRITE)
                .dryRun((Retitle in, dev.toolgate.tool.ToolContext c) -> {
                    Incident now = byId.get(in.id());
                    if (now == null) {
                        throw new dev.toolgate.tool.ToolValidationException("/id", "no incident " + in.id());
                    }
                    return Preview.<Retitle>of("Rename " + in.id() + " to '" + in.title() + "'")
                            .withDiff(now, new Incident(now.id(), in.title(), now.severity()));
                })
                .execute((Retitle in, dev.toolgate.tool.ToolContext c) -> {
                    executions.incrementAndGet();
                    return byId.computeIfPresent(in.id(), (k, i) -> new Incident(i.id(), in.title(), i.severity()));
                })
                .build();
        return List.of(list, create, purge, retitle);
    }
}
