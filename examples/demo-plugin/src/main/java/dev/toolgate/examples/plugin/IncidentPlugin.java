package dev.toolgate.examples.plugin;

import dev.toolgate.tool.DryRun;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Optional;

/**
 * The {@code incident} plugin: list, get, create, update and delete incidents. Registered only
 * through {@code META-INF/services/dev.toolgate.tool.ToolProvider}.
 */
public final class IncidentPlugin implements ToolProvider {

    /** Reading incidents. */
    public static final String READ = "incident.incident.read";
    /** Creating, changing and deleting incidents. */
    public static final String MANAGE = "incident.incident.manage";

    /** Filters for {@code incident.list}. */
    public record IncidentQuery(
            @JsonPropertyDescription("Only incidents of this catalog system id") Optional<String> systemId,
            @JsonPropertyDescription("Only incidents in this status") Optional<IncidentStatus> status) {
    }

    /** One incident by id. */
    public record IncidentId(@JsonPropertyDescription("The incident id, such as INC-1") String id) {
    }

    /** A new incident. */
    public record NewIncident(
            @JsonPropertyDescription("The catalog system id (not its name); see catalog.listSystems") String systemId,
            @JsonPropertyDescription("A short title") @Size(min = 3, max = 120) String title,
            Severity severity) {
    }

    /** Changes to an incident; absent fields stay as they are. */
    public record IncidentUpdate(
            String id,
            @Size(min = 3, max = 120) Optional<String> title,
            Optional<Severity> severity,
            Optional<IncidentStatus> status) {
    }

    private final DemoData data;

    /** The provider {@link java.util.ServiceLoader} creates. */
    public IncidentPlugin() {
        this(DemoData.shared());
    }

    IncidentPlugin(DemoData data) {
        this.data = data;
    }

    @Override
    public String pluginId() {
        return "incident";
    }

    @Override
    public List<Tool<?, ?>> tools() {
        return List.of(list(), get(), create(), update(), delete());
    }

    private Tool<IncidentQuery, List<Incident>> list() {
        return Tool.builder("list", IncidentQuery.class)
                .title("List incidents")
                .description("List incidents, optionally for one system or status. Read-only.")
                .effect(Effect.READ)
                .requires(READ)
                .execute((q, ctx) -> data.incidents().stream()
                        .filter(i -> q.systemId().map(i.systemId()::equals).orElse(true))
                        .filter(i -> q.status().map(i.status()::equals).orElse(true))
                        .toList())
                .build();
    }

    private Tool<IncidentId, Incident> get() {
        return Tool.builder("get", IncidentId.class)
                .title("Get an incident")
                .description("Get one incident by its id (such as INC-1). Read-only.")
                .effect(Effect.READ)
                .requires(READ)
                .output(Incident.class)
                .execute((in, ctx) -> existing(in.id(), "/id"))
                .build();
    }

    private Tool<NewIncident, Incident> create() {
        return Tool.builder("create", NewIncident.class)
                .title("Open an incident")
                .description("Open an incident on a catalog system. Pass the system id from catalog.listSystems, not its name.")
                .effect(Effect.MUTATE)
                .requires(MANAGE)
                .dryRun((in, ctx) -> {
                    var system = data.system(in.systemId()).orElseThrow(() -> new ToolValidationException("/systemId",
                            "unknown system '" + in.systemId() + "'; call catalog.listSystems for valid ids"));
                    return Preview.of("Open " + in.severity() + " incident \"" + in.title() + "\" on " + system.name());
                })
                .execute((in, ctx) -> data.create(in.systemId(), in.title(), in.severity()))
                .revert((in, created, ctx) -> data.delete(created.id()))
                .output(Incident.class)
                .build();
    }

    private Tool<IncidentUpdate, Incident> update() {
        DryRun<IncidentUpdate> preview = (in, ctx) -> {
            Incident before = existing(in.id(), "/id");
            Incident after = apply(before, in);
            if (after.equals(before)) {
                throw new ToolValidationException("", "the update changes nothing; pass at least one new value");
            }
            return Preview.<IncidentUpdate>of("Update " + before.id() + " \"" + before.title() + "\"").withDiff(before, after);
        };
        return Tool.builder("update", IncidentUpdate.class)
                .title("Update an incident")
                .description("Change an incident's title, severity or status. Only the fields you pass change.")
                .effect(Effect.MUTATE)
                .requires(MANAGE)
                .dryRun(preview)
                .execute((in, ctx) -> data.replace(apply(existing(in.id(), "/id"), in)))
                .revert((in, updated, ctx) -> data.undoUpdate(updated))
                .output(Incident.class)
                .build();
    }

    private Tool<IncidentId, Incident> delete() {
        return Tool.builder("delete", IncidentId.class)
                .title("Delete an incident")
                .description("Delete an incident permanently. Destructive: always needs a human's confirmation.")
                .effect(Effect.DESTRUCTIVE)
                .requires(MANAGE)
                .dryRun((in, ctx) -> {
                    Incident target = existing(in.id(), "/id");
                    return Preview.of("Delete " + target.id() + " \"" + target.title() + "\" (" + target.status() + ", "
                            + target.severity() + ")");
                })
                .execute((in, ctx) -> {
                    Incident target = existing(in.id(), "/id");
                    data.delete(target.id());
                    return target;
                })
                .build();
    }

    private Incident existing(String id, String path) {
        return data.incident(id).orElseThrow(() -> new ToolValidationException(List.of(
                ValidationIssue.at(path, "no incident '" + id + "'; call incident.list to find ids"))));
    }

    private static Incident apply(Incident before, IncidentUpdate in) {
        return before.with(in.title().orElse(before.title()), in.severity().orElse(before.severity()),
                in.status().orElse(before.status()));
    }
}
