package dev.toolgate.examples.boot;

import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Incidents, in memory for the example: listing is a read, opening one is a change that waits for consent. */
public class IncidentTools implements ToolProvider {

    /** A new incident's title. */
    public record NewIncident(String title) {
    }

    /** Lists take no arguments. */
    public record NoArguments() {
    }

    private final Map<String, String> incidents = new ConcurrentHashMap<>();
    private final AtomicInteger next = new AtomicInteger();

    @Override
    public String pluginId() {
        return "incident";
    }

    @Override
    public List<Tool<?, ?>> tools() {
        Tool<?, ?> list = Tool.builder("list", NoArguments.class).description("Lists the open incidents")
                .effect(Effect.READ).requires("incident.read")
                .execute((NoArguments none, ToolContext context) -> Map.copyOf(incidents))
                .build();
        Tool<?, ?> create = Tool.builder("create", NewIncident.class).description("Opens an incident")
                .effect(Effect.MUTATE).requires("incident.write")
                .dryRun((NewIncident in, ToolContext context) -> Preview.<NewIncident>of("Open incident '" + in.title() + "'"))
                .execute((NewIncident in, ToolContext context) -> {
                    String id = "INC-" + next.incrementAndGet();
                    incidents.put(id, in.title());
                    return Map.of("id", id, "title", in.title());
                })
                .build();
        return List.of(list, create);
    }

    /** The open incidents, by id. */
    public Map<String, String> open() {
        return Map.copyOf(incidents);
    }
}
