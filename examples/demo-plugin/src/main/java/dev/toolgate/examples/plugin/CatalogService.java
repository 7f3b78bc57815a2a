package dev.toolgate.examples.plugin;

import dev.toolgate.tool.RequiresAccess;
import java.util.List;
import java.util.Optional;

/**
 * An existing service of the host application, with its own authorization declaration. The catalog
 * plugin exposes {@link #listSystems} verbatim as a tool: its input schema comes from the parameter
 * type and its rules from {@link RequiresAccess}, so neither is declared twice.
 */
public class CatalogService {

    /** Filters for {@link #listSystems}. */
    public record SystemFilter(Optional<String> owner) {
    }

    private final DemoData data;

    public CatalogService(DemoData data) {
        this.data = data;
    }

    /** The catalog's systems, optionally for one owning team. */
    @RequiresAccess("catalog.system.read")
    public List<CatalogSystem> listSystems(SystemFilter filter) {
        return data.systems().stream().filter(s -> filter.owner().map(s.owner()::equals).orElse(true)).toList();
    }
}
