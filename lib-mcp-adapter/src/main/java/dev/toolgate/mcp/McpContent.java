package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import dev.toolgate.tool.Content;
import dev.toolgate.tool.ContentResult;
import dev.toolgate.tool.SamplingRequest;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.type.TypeReference;

/**
 * A tool's {@link ContentResult} as MCP content: each {@link Content} item as the SDK's content type
 * ({@code TextContent}, {@code ImageContent}, {@code AudioContent}, {@code EmbeddedResource},
 * {@code ResourceLink}), and its structured content as {@code structuredContent}. The items are
 * already checked (base64, MIME types, URIs, sizes) where the result was built.
 */
final class McpContent {

    /** The {@code _meta} key that names the call's audit record in a content result. */
    static final String CALL_ID_META = "dev.toolgate/callId";
    /** The {@code _meta} key that says what happened to the call ({@code executed}, {@code applied}). */
    static final String STATUS_META = "dev.toolgate/status";

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private McpContent() {
    }

    /** The call's result: the items, the structured content, and the call id and status in {@code _meta}. */
    static CallToolResult result(ContentResult content, String callId, String status) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(CALL_ID_META, callId);
        meta.put(STATUS_META, status);
        CallToolResult.Builder builder = CallToolResult.builder().content(items(content)).isError(false).meta(meta);
        if (content.structured() != null) {
            builder.structuredContent(Json.mapper().convertValue(content.structured(), MAP));
        }
        return builder.build();
    }

    static List<McpSchema.Content> items(ContentResult content) {
        List<McpSchema.Content> items = new ArrayList<>(content.content().size());
        for (Content item : content.content()) {
            items.add(item(item));
        }
        return items;
    }

    static McpSchema.Content item(Content item) {
        if (item instanceof Content.Text text) {
            return new McpSchema.TextContent(text.text());
        }
        if (item instanceof Content.Image image) {
            return new McpSchema.ImageContent(null, image.data(), image.mimeType());
        }
        if (item instanceof Content.Audio audio) {
            return new McpSchema.AudioContent(null, audio.data(), audio.mimeType());
        }
        if (item instanceof Content.EmbeddedResource resource) {
            McpSchema.ResourceContents contents = resource.text() != null
                    ? new McpSchema.TextResourceContents(resource.uri(), resource.mimeType(), resource.text())
                    : new McpSchema.BlobResourceContents(resource.uri(), resource.mimeType(), resource.blob());
            return new McpSchema.EmbeddedResource(null, contents);
        }
        Content.ResourceLink link = (Content.ResourceLink) item;
        return new McpSchema.ResourceLink(link.name(), link.title(), link.uri(), link.description(), link.mimeType(),
                link.size(), null, null);
    }

    /**
     * A client's sampling answer as a {@link Content} item (text, image or audio); the item's checks
     * apply to what the client sent.
     *
     * @throws IllegalArgumentException for any other kind, or content that fails the checks
     */
    static Content fromSampled(McpSchema.Content content) {
        if (content instanceof McpSchema.TextContent text) {
            return Content.text(text.text());
        }
        if (content instanceof McpSchema.ImageContent image) {
            return Content.image(image.data(), image.mimeType());
        }
        if (content instanceof McpSchema.AudioContent audio) {
            return Content.audio(audio.data(), audio.mimeType());
        }
        throw new IllegalArgumentException("the client answered with " + (content == null ? "no content"
                : "content of type " + content.type()) + "; a sampling answer is text, an image or audio");
    }

    static McpSchema.SamplingMessage message(SamplingRequest.Message message) {
        McpSchema.Role role = message.role() == SamplingRequest.Role.USER ? McpSchema.Role.USER : McpSchema.Role.ASSISTANT;
        return new McpSchema.SamplingMessage(role, item(message.content()));
    }

    static String stopReason(McpSchema.CreateMessageResult.StopReason reason) {
        if (reason == null) {
            return null;
        }
        return switch (reason) {
            case END_TURN -> "endTurn";
            case STOP_SEQUENCE -> "stopSequence";
            case MAX_TOKENS -> "maxTokens";
            default -> "unknown";
        };
    }
}
