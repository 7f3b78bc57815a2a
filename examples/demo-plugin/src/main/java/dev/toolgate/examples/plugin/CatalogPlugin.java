package dev.toolgate.examples.plugin;

import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.Tools;
import java.util.List;

/**
 * The {@code catalog} plugin: one tool, {@code catalog.listSystems}, projected from an existing
 * service method (the second registration path). Registered only through
 * {@code META-INF/services/dev.toolgate.tool.ToolProvider}.
 */
public final class CatalogPlugin implements ToolProvider {

    private final CatalogService service;

    /** The provider {@link java.util.ServiceLoader} creates. */
    public CatalogPlugin() {
        this(DemoData.shared());
    }

    CatalogPlugin(DemoData data) {
        this.service = new CatalogService(data);
    }

    @Override
    public String pluginId() {
        return "catalog";
    }

    @Override
    public List<Tool<?, ?>> tools() {
        return List.of(Tools.expose(service, "listSystems")
                .title("List catalog systems")
                .description("List the systems in the service catalog with their ids. Call this to turn a system "
                        + "name into the id other tools need.")
                .effect(Effect.READ)
                .build());
    }
}
