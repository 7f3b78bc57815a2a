package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolDescriptor;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.type.TypeReference;

/** The MCP tool definitions the bridge serves: a governed tool's, and the apply tool's. */
final class ToolDefinitions {

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private ToolDefinitions() {
    }

    /**
     * A descriptor as an MCP tool: name, title, description, the input JSON Schema, and annotations
     * from the effect. The output schema is not advertised: a governed call's structured content is
     * the gate's envelope (executed, proposal, applied), not the tool's bare output.
     */
    static McpSchema.Tool toMcp(String mcpName, ToolDescriptor descriptor) {
        return toMcp(mcpName, descriptor, false);
    }

    /**
     * A descriptor as an MCP tool; for a tool that declared it returns a content result, with its
     * output schema (if it has one) as the MCP {@code outputSchema}: its structured content is its own.
     */
    static McpSchema.Tool toMcp(String mcpName, ToolDescriptor descriptor, boolean contentOutput) {
        Effect effect = descriptor.effect();
        ToolAnnotations annotations = ToolAnnotations.builder()
                .title(descriptor.title().orElse(null))
                .readOnlyHint(effect == Effect.READ)
                .destructiveHint(effect == Effect.READ ? null : effect == Effect.DESTRUCTIVE)
                .openWorldHint(descriptor.openWorld())
                .build();
        McpSchema.Tool.Builder builder = McpSchema.Tool.builder(mcpName, Json.mapper().convertValue(descriptor.inputSchema(), MAP))
                .title(descriptor.title().orElse(null))
                .description(descriptor.description())
                .annotations(annotations);
        if (contentOutput && descriptor.outputSchema() != null) {
            builder.outputSchema(Json.mapper().convertValue(descriptor.outputSchema(), MAP));
        }
        return builder.build();
    }

    static McpSchema.Tool applyTool(String applyToolName) {
        Map<String, Object> token = new LinkedHashMap<>();
        token.put("type", "string");
        token.put("description", "The token from a proposal's result (propose:<id>.<nonce>), exactly as returned.");
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("token", token));
        schema.put("required", List.of("token"));
        schema.put("additionalProperties", false);
        return McpSchema.Tool.builder(applyToolName, schema)
                .title("Apply a proposal")
                .description("Apply a change that a tool proposed (a result with status awaiting_user). Call it only "
                        + "after the user has seen the proposal's summary and diff and agreed. Pass only the token; it runs "
                        + "exactly the proposed payload, works once and expires. Destructive changes may ask the user to "
                        + "confirm again.")
                .annotations(ToolAnnotations.builder()
                        .title("Apply a proposal")
                        .readOnlyHint(false)
                        .destructiveHint(true)
                        .idempotentHint(false)
                        .openWorldHint(false)
                        .build())
                .build();
    }
}
