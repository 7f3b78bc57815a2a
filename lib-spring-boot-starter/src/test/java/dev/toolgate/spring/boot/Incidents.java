package dev.toolgate.spring.boot;

import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The tools the starter's tests govern: a read and a change, over a map the tests look into. */
final class Incidents implements ToolProvider {

    record NewIncident(String title) {
    }

    final Map<String, String> open = new ConcurrentHashMap<>();
    final AtomicInteger created = new AtomicInteger();

    @Override
    public String pluginId() {
        return "incident";
    }

    @Override
    public List<Tool<?, ?>> tools() {
        Tool<?, ?> list = Tool.builder("list", dev.toolgate.tool.NoInput.class).description("Lists open incidents")
                .effect(Effect.READ).requires("incident.read")
                .execute((dev.toolgate.tool.NoInput q, ToolContext c) -> List.copyOf(open.values()))
                .build();
        Tool<?, ?> create = Tool.builder("create", NewIncident.class).description("Opens an incident")
                .effect(Effect.MUTATE).requires("incident.write")
                .dryRun((NewIncident in, ToolContext c) -> Preview.<NewIncident>of("Open incident '" + in.title() + "'"))
                .execute((NewIncident in, ToolContext c) -> {
                    String id = "INC-" + created.incrementAndGet();
                    open.put(id, in.title());
                    return Map.of("id", id);
                })
                .build();
        return List.of(list, create);
    }
}
