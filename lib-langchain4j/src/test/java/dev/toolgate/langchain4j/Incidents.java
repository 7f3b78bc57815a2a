package dev.toolgate.langchain4j;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolValidationException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A small incident system behind a gate: a read, a mutation and a destructive admin tool. */
final class Incidents {

    record Incident(int id, String title, String severity) {
    }

    record NewIncident(String title, String severity) {
    }

    record Query(String text) {
    }

    final List<Incident> all = new CopyOnWriteArrayList<>();
    /** Mutations that ran (create or purge). */
    final java.util.concurrent.atomic.AtomicInteger mutations = new java.util.concurrent.atomic.AtomicInteger();
    /** Reads that ran. */
    final java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();

    Toolgate gate(ToolBudget budget) {
        return gate(budget, null);
    }

    /** A gate on {@code store} (null: in memory). */
    Toolgate gate(ToolBudget budget, dev.toolgate.spi.ToolgateStore store) {
        all.add(new Incident(1, "Database slow", "high"));
        Tool<Query, List<Incident>> find = Tool.builder("find", Query.class)
                .description("Find incidents whose title contains the text.")
                .effect(Effect.READ)
                .requires("incident.read")
                .execute((Query q, dev.toolgate.tool.ToolContext ctx) -> {
                    reads.incrementAndGet();
                    return all.stream().filter(i -> i.title().contains(q.text())).toList();
                })
                .build();
        Tool<NewIncident, Incident> create = Tool.builder("create", NewIncident.class)
                .description("Open an incident.")
                .effect(Effect.MUTATE)
                .requires("incident.manage")
                .dryRun((NewIncident in, dev.toolgate.tool.ToolContext ctx) -> {
                    if (!List.of("low", "high").contains(in.severity())) {
                        throw new ToolValidationException("/severity", "must be low or high");
                    }
                    return Preview.<NewIncident>of("Open incident \"" + in.title() + "\" (" + in.severity() + ")");
                })
                .execute((NewIncident in, dev.toolgate.tool.ToolContext ctx) -> {
                    mutations.incrementAndGet();
                    Incident incident = new Incident(all.size() + 1, in.title(), in.severity());
                    all.add(incident);
                    return incident;
                })
                .build();
        Tool<NoInput, Integer> purge = Tool.builder("purge", NoInput.class)
                .description("Delete every incident.")
                .effect(Effect.DESTRUCTIVE)
                .requires("admin")
                .dryRun((NoInput in, dev.toolgate.tool.ToolContext ctx) -> Preview.<NoInput>of("Delete all incidents"))
                .execute((NoInput in, dev.toolgate.tool.ToolContext ctx) -> {
                    mutations.incrementAndGet();
                    int n = all.size();
                    all.clear();
                    return n;
                })
                .build();
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .tools("incident", find, create).tools("admin", purge).budget(budget);
        if (store != null) {
            builder.store(store).sweepInterval(java.time.Duration.ZERO);
        }
        return builder.build();
    }
}
