package dev.toolgate.console;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.source.SourceStatus;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tool sources and drift: which sources answer, and which tools changed their schema since operators
 * last reviewed them (such a tool asks for approval even where policy allows it, until confirmed).
 */
final class SourcesApi {

    private final Toolgate toolgate;

    SourcesApi(Toolgate toolgate) {
        this.toolgate = toolgate;
    }

    ConsoleResponse list(Exchange exchange) {
        CallContext operator = InboxApi.requireOperator(toolgate, exchange);
        return Responses.json(200, view(operator, toolgate.listSources()));
    }

    ConsoleResponse refresh(Exchange exchange) {
        CallContext operator = InboxApi.requireOperator(toolgate, exchange);
        exchange.jsonBody();
        return Responses.json(200, view(operator, toolgate.refreshSources()));
    }

    ConsoleResponse confirm(Exchange exchange) {
        CallContext operator = InboxApi.requireOperator(toolgate, exchange);
        String tool = Exchange.text(exchange.jsonBody(), "tool", true, 200).orElseThrow();
        if (toolgate.registry().find(tool).isEmpty()) {
            throw new ConsoleException(404, "not_found", "No tool " + tool + ".");
        }
        try {
            toolgate.confirmSchema(operator, tool);
        } catch (dev.toolgate.call.ForbiddenException e) {
            throw new ConsoleException(403, "forbidden", e.getMessage());
        } catch (IllegalArgumentException | dev.toolgate.call.ProposeApplyException e) {
            throw ConsoleException.badRequest("tool", e.getMessage());
        }
        return Responses.json(200, Json.object().put("outcome", "confirmed").put("tool", tool));
    }

    private ObjectNode view(CallContext operator, List<SourceStatus> statuses) {
        ObjectNode body = Json.object();
        ArrayNode sources = body.putArray("sources");
        for (SourceStatus s : statuses) {
            ObjectNode row = sources.addObject()
                    .put("id", s.id())
                    .put("displayName", s.displayName())
                    .put("state", s.state().wireName())
                    .put("tools", s.tools())
                    .put("listedAt", Views.instant(s.listedAt()))
                    .put("error", s.error());
            ArrayNode skipped = row.putArray("skipped");
            s.skipped().forEach(skipped::add);
        }
        ArrayNode drifted = body.putArray("drifted");
        for (Toolgate.CatalogEntry entry : toolgate.catalog(operator)) {
            if (entry.mode().drifted()) {
                String name = entry.descriptor().name();
                drifted.addObject()
                        .put("tool", name)
                        .put("source", statuses.stream().map(SourceStatus::id).filter(id -> name.startsWith(id + "."))
                                .findFirst().orElse(null))
                        .put("mode", entry.mode().mode().wireName())
                        .put("modeSource", entry.mode().source().wireName());
            }
        }
        return body;
    }
}
