package dev.toolgate.examples.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.json.Json;
import dev.toolgate.mcp.McpCatalog;
import dev.toolgate.mcp.McpContents;
import dev.toolgate.mcp.McpResource;
import dev.toolgate.mcp.McpResourceTemplate;
import dev.toolgate.tool.ToolValidationException;
import java.util.List;
import java.util.Map;

/**
 * What the demo MCP server offers beside its tools: the caller's actions guide as a resource, and
 * each incident as a resource ({@code incident://INC-1}) read through the gate, so a read of the
 * resource is the governed, audited {@code incident.get} call and shows only what the principal may
 * read.
 */
final class DemoCatalog {

    /** The demo plugin's rule for reading incidents (the plugin is found at run time, not compiled against). */
    static final String INCIDENT_READ = "incident.incident.read";

    /** The guide's URI. */
    static final String GUIDE = "toolgate://guide";

    private DemoCatalog() {
    }

    static McpCatalog of(Toolgate gate) {
        return McpCatalog.create()
                .add(McpResource.builder(GUIDE, "guide")
                        .title("Your actions guide")
                        .description("Every tool you may use here, with its effect and mode, as Markdown")
                        .mimeType("text/markdown")
                        .reader(request -> List.of(McpContents.text(request.uri(), "text/markdown",
                                gate.guide(request.principal()))))
                        .build())
                .add(McpResourceTemplate.builder("incident://{id}", "incident")
                        .title("An incident")
                        .description("One incident by id, such as incident://INC-1 (JSON; the same as incident.get)")
                        .mimeType("application/json")
                        .requires(INCIDENT_READ)
                        .reader(request -> {
                            CallContext context = CallContext.of(request.principal()).withTransport("mcp");
                            try {
                                CallResult result = gate.call(context, "incident.get",
                                        Json.mapper().valueToTree(Map.of("id", request.variables().get("id"))));
                                if (result instanceof Executed executed) {
                                    return List.of(McpContents.text(request.uri(), "application/json",
                                            Json.mapper().writeValueAsString(executed.result())));
                                }
                                return List.of();
                            } catch (ToolValidationException unknownIncident) {
                                return List.of(); // the same "Resource not found" as any unknown URI
                            }
                        })
                        .build());
    }
}
