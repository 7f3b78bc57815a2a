package dev.toolgate.mcp;

import dev.toolgate.tool.Content;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Base64;
import java.util.Objects;

/**
 * One message of a prompt: a role and one piece of content: text, an image or an embedded resource
 * through the shortcuts below, or any {@link Content} (audio and resource links too) through
 * {@link #of(Role, Content)}, the same items a tool's {@link dev.toolgate.tool.ContentResult} holds.
 *
 * <pre>{@code
 * McpPromptMessage.text(Role.USER, "Prompt with arguments: arg1='" + a + "', arg2='" + b + "'");
 * McpPromptMessage.image(Role.USER, pngBytes, "image/png");
 * McpPromptMessage.resource(Role.USER, McpContents.text(uri, "text/plain", "Embedded resource content for testing."));
 * }</pre>
 */
public final class McpPromptMessage {

    /** Who speaks the message. */
    public enum Role { USER, ASSISTANT }

    private final Role role;
    private final McpSchema.Content content;

    private McpPromptMessage(Role role, McpSchema.Content content) {
        this.role = Objects.requireNonNull(role, "role");
        this.content = content;
    }

    /** A message of any content item, checked when the item was built. */
    public static McpPromptMessage of(Role role, Content content) {
        return new McpPromptMessage(role, McpContent.item(Objects.requireNonNull(content, "content")));
    }

    /** A text message. */
    public static McpPromptMessage text(Role role, String text) {
        return new McpPromptMessage(role, new McpSchema.TextContent(Objects.requireNonNull(text, "text")));
    }

    /** An image message: the bytes are sent base64-encoded with their MIME type (such as {@code image/png}). */
    public static McpPromptMessage image(Role role, byte[] data, String mimeType) {
        Objects.requireNonNull(data, "data");
        if (mimeType == null || mimeType.isBlank()) {
            throw new IllegalArgumentException("an image message needs a mimeType");
        }
        return new McpPromptMessage(role, new McpSchema.ImageContent(null, Base64.getEncoder().encodeToString(data), mimeType));
    }

    /** A message embedding a resource's contents. */
    public static McpPromptMessage resource(Role role, McpContents contents) {
        return new McpPromptMessage(role, new McpSchema.EmbeddedResource(null, Objects.requireNonNull(contents, "contents").toMcp()));
    }

    /** The role. */
    public Role role() {
        return role;
    }

    McpSchema.PromptMessage toMcp() {
        return new McpSchema.PromptMessage(role == Role.USER ? McpSchema.Role.USER : McpSchema.Role.ASSISTANT, content);
    }
}
