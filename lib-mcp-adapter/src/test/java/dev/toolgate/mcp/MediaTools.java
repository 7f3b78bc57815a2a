package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.json.Json;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.ClientInteractionException;
import dev.toolgate.tool.ClientInteractionUnsupportedException;
import dev.toolgate.tool.Content;
import dev.toolgate.tool.ContentResult;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Elicitation;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.SamplingRequest;
import dev.toolgate.tool.SamplingResult;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools that return MCP content and talk back to their client, shaped like the conformance suite's
 * fixtures (test_image_content, test_tool_with_progress, test_sampling, test_elicitation, ...).
 */
final class MediaTools {

    /** A 1x1 red PNG. */
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==");
    /** A tiny WAV header and two samples. */
    static final byte[] WAV = Base64.getDecoder().decode(
            "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==");
    /** A secret the redactor knows by its shape (a GitHub token). */
    static final String SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

    record Prompt(String prompt) {
    }

    record Message(String message) {
    }

    record Name(String name) {
    }

    /** The five enum shapes of SEP-1330, with defaults (SEP-1034). */
    static final ObjectNode ENUMS = (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{"
            + "\"untitledSingle\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"],\"default\":\"option1\"},"
            + "\"titledSingle\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
            + "{\"const\":\"value2\",\"title\":\"Second Option\"}]},"
            + "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\"],\"enumNames\":[\"Option One\",\"Option Two\"]},"
            + "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\"]}},"
            + "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"value1\",\"title\":\"First Choice\"}]}},"
            + "\"score\":{\"type\":\"number\",\"default\":95.5},\"verified\":{\"type\":\"boolean\",\"default\":true}},"
            + "\"required\":[]}");

    private MediaTools() {
    }

    static ToolProvider tools() {
        return ToolProvider.of("media",
                read("image", "An image.", ctx -> ContentResult.of(Content.image(PNG, "image/png"))),
                read("audio", "Audio.", ctx -> ContentResult.of(Content.audio(WAV, "audio/wav"))),
                read("resource", "An embedded text resource.", ctx -> ContentResult.of(
                        Content.resource("test://embedded-resource", "text/plain", "This is an embedded resource content."))),
                read("blob", "An embedded binary resource.", ctx -> ContentResult.of(
                        Content.blobResource("test://blob", "image/png", PNG))),
                read("link", "A resource link.", ctx -> ContentResult.of(new Content.ResourceLink("file:///tmp/report.txt",
                        "report.txt", "The report", "Last week's report", "text/plain", 1234L))),
                Tool.builder("mixed", NoInput.class).description("Mixed content with structured content.")
                        .effect(Effect.READ).returnsContent()
                        .outputSchema((ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{\"test\":{\"type\":\"string\"},"
                                + "\"value\":{\"type\":\"integer\"}},\"required\":[\"test\",\"value\"]}"))
                        .execute((in, ctx) -> ContentResult.of(Content.text("Multiple content types test:"),
                                Content.image(PNG, "image/png"),
                                Content.resource("test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}"))
                                .withStructured(Map.of("test", "data", "value", 123)))
                        .build(),
                read("secret", "Text holding a secret.", ctx -> ContentResult.of(Content.text("token " + SECRET),
                        Content.image(PNG, "image/png"))),
                read("big", "A large image.", ctx -> ContentResult.of(Content.image(new byte[3 * 1024 * 1024], "image/png"))),
                read("longtext", "A megabyte of text.", ctx -> ContentResult.of(Content.text("word ".repeat(200_000)),
                        Content.resource("test://long", "text/plain", "line\n".repeat(200_000)))),
                read("bad", "Content built from bad base64.", ctx -> ContentResult.of(Content.image("not base64!", "image/png"))),
                read("plain", "A plain value.", ctx -> Map.of("answer", 42)),
                read("progress", "Reports progress 0, 50, 100 of 100.", ctx -> {
                    ClientChannel channel = ctx.channel();
                    channel.progress(0, 100.0, "start");
                    Thread.sleep(30);
                    channel.progress(50, 100.0, "half");
                    Thread.sleep(30);
                    channel.progress(100, 100.0, "done");
                    return ContentResult.of(Content.text("progress done"));
                }),
                read("logging", "Logs three info messages and one debug message.", ctx -> {
                    ClientChannel channel = ctx.channel();
                    channel.log(ClientChannel.LogLevel.INFO, "media", "Tool execution started");
                    channel.log(ClientChannel.LogLevel.DEBUG, "media", "a debug detail");
                    Thread.sleep(20);
                    channel.log(ClientChannel.LogLevel.INFO, "media", "Tool processing data");
                    channel.log(ClientChannel.LogLevel.INFO, "media", Map.of("step", 3));
                    return ContentResult.of(Content.text("logged"));
                }),
                read("backwards", "Reports progress 5, 3, 5, NaN, infinity, 7.", ctx -> {
                    for (double value : new double[] {5, 3, 5, Double.NaN, Double.POSITIVE_INFINITY, 7}) {
                        ctx.channel().progress(value, null, null);
                        Thread.sleep(15);
                    }
                    return ContentResult.of(Content.text("went backwards"));
                }),
                read("flood", "Floods progress and log messages.", ctx -> {
                    for (int i = 1; i <= 200_000; i++) {
                        ctx.channel().progress(i, null, null);
                    }
                    for (int i = 0; i < 5_000; i++) {
                        ctx.channel().log(ClientChannel.LogLevel.ERROR, "flood", "x".repeat(100_000));
                    }
                    return ContentResult.of(Content.text("flooded"));
                }),
                Tool.builder("sample", Prompt.class).description("Asks the client's model.").effect(Effect.READ)
                        .execute((in, ctx) -> {
                            try {
                                SamplingResult answer = ctx.channel().sample(SamplingRequest.ask(in.prompt(), 100));
                                return ContentResult.of(Content.text("LLM response: " + answer.text() + " (" + answer.model()
                                        + ", " + answer.stopReason() + ")"));
                            } catch (ClientInteractionUnsupportedException e) {
                                return ContentResult.of(Content.text("unsupported: " + e.reason()));
                            } catch (ClientInteractionException e) {
                                return ContentResult.of(Content.text("failed: " + e.getMessage()));
                            }
                        }).build(),
                Tool.builder("elicit", Message.class).description("Asks the user.").effect(Effect.READ)
                        .execute((in, ctx) -> {
                            ObjectNode schema = (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{"
                                    + "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
                                    + "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"},"
                                    + "\"status\":{\"type\":\"string\",\"enum\":[\"active\",\"inactive\"],\"default\":\"active\"},"
                                    + "\"age\":{\"type\":\"integer\",\"default\":30}},"
                                    + "\"required\":[\"username\",\"email\"]}");
                            try {
                                Elicitation answer = ctx.channel().elicit(in.message(), schema);
                                return ContentResult.of(Content.text("User response: action=" + answer.action()
                                        + ", content=" + (answer.content() == null ? "null" : Json.write(answer.content()))));
                            } catch (ClientInteractionUnsupportedException e) {
                                return ContentResult.of(Content.text("unsupported: " + e.reason()));
                            }
                        }).build(),
                read("enums", "Asks with every enum shape of SEP-1330.", ctx -> {
                    Elicitation answer = ctx.channel().elicit("Pick", ENUMS);
                    return ContentResult.of(Content.text("Elicitation completed: action=" + answer.action().name().toLowerCase()
                            + ", content=" + Json.write(answer.content())));
                }),
                Tool.builder("rename", Name.class).description("Renames something; asks the user from its dry-run.")
                        .effect(Effect.MUTATE)
                        .dryRun((in, ctx) -> {
                            ctx.channel().progress(1, 2.0, "dry-run progress must go nowhere");
                            ctx.channel().log(ClientChannel.LogLevel.EMERGENCY, "dry-run", "must go nowhere");
                            try {
                                ctx.channel().elicit("Really?", (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{}}"));
                                return Preview.of("ELICITED FROM A DRY-RUN");
                            } catch (ClientInteractionUnsupportedException e) {
                                return Preview.of("Rename to " + in.name() + " (dry-run could not ask: " + e.reason() + ")");
                            }
                        })
                        .execute((in, ctx) -> {
                            Elicitation answer = ctx.channel().elicit("Rename to " + in.name() + "?",
                                    (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{}}"));
                            return ContentResult.of(Content.text("renamed after " + answer.action()));
                        })
                        .build());
    }

    private interface Body {
        Object run(dev.toolgate.tool.ToolContext ctx) throws Exception;
    }

    private static Tool<NoInput, Object> read(String name, String description, Body body) {
        return Tool.builder(name, NoInput.class).description(description).effect(Effect.READ)
                .execute((in, ctx) -> body.run(ctx)).build();
    }

    static Toolgate gate() {
        return Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .sweepInterval(Duration.ZERO)
                .provider(tools())
                .build();
    }
}
