package dev.toolgate.examples.mcp;

import dev.toolgate.json.Json;
import dev.toolgate.mcp.McpCatalog;
import dev.toolgate.mcp.McpContents;
import dev.toolgate.mcp.McpPrompt;
import dev.toolgate.mcp.McpPromptMessage;
import dev.toolgate.mcp.McpResource;
import dev.toolgate.mcp.McpResourceTemplate;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.tool.ClientChannel.LogLevel;
import dev.toolgate.tool.Content;
import dev.toolgate.tool.ContentResult;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Elicitation;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.SamplingRequest;
import dev.toolgate.tool.SamplingResult;
import dev.toolgate.tool.Tool;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fixtures the official MCP conformance suite (0.1.16, spec 2025-11-25) expects of a server, as
 * Toolgate tools (plugin {@value #PLUGIN}, every one READ, behind {@value #RULE}) and catalog
 * entries. Each one does exactly what the suite's scenario description asks; see
 * {@code examples/demo-host/src/conformance/}.
 */
final class ConformanceFixtures {

    /** The plugin id of the fixture tools; the served names drop it (see {@link ConformanceServer}). */
    static final String PLUGIN = "conformance";

    /** The rule every fixture requires. */
    static final String RULE = "conformance.use";

    /** A 1x1 red PNG. */
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==");

    /** A minimal WAV: a RIFF header and one silent 8-bit sample at 8 kHz. */
    static final byte[] WAV = Base64.getDecoder().decode(
            "UklGRiUAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQEAAACA");

    /** Input of {@code test_sampling}. */
    record SamplingInput(String prompt) {
    }

    /** Input of {@code test_elicitation}. */
    record ElicitationInput(String message) {
    }

    private ConformanceFixtures() {
    }

    static List<Tool<?, ?>> tools() {
        return List.of(
                noInput("test_simple_text", "Returns simple text",
                        (ctx) -> ContentResult.of(Content.text("This is a simple text response for testing."))),
                noInput("test_image_content", "Returns an image", (ctx) -> ContentResult.of(Content.image(PNG, "image/png"))),
                noInput("test_audio_content", "Returns audio", (ctx) -> ContentResult.of(Content.audio(WAV, "audio/wav"))),
                noInput("test_embedded_resource", "Returns an embedded resource", (ctx) -> ContentResult.of(
                        Content.resource("test://embedded-resource", "text/plain", "This is an embedded resource content."))),
                noInput("test_multiple_content_types", "Returns text, an image and a resource", (ctx) -> ContentResult.of(
                        Content.text("Multiple content types test:"),
                        Content.image(PNG, "image/png"),
                        Content.resource("test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}"))),
                noInput("test_tool_with_logging", "Sends three log messages while it runs", (ctx) -> {
                    ClientChannel channel = ctx.channel();
                    channel.log(LogLevel.INFO, "conformance", "Tool execution started");
                    Thread.sleep(50);
                    channel.log(LogLevel.INFO, "conformance", "Tool processing data");
                    Thread.sleep(50);
                    channel.log(LogLevel.INFO, "conformance", "Tool execution completed");
                    return ContentResult.of(Content.text("Tool with logging executed successfully"));
                }),
                noInput("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100", (ctx) -> {
                    ClientChannel channel = ctx.channel();
                    channel.progress(0, 100.0, null);
                    Thread.sleep(50);
                    channel.progress(50, 100.0, null);
                    Thread.sleep(50);
                    channel.progress(100, 100.0, null);
                    return ContentResult.of(Content.text("Tool with progress executed successfully"));
                }),
                noInput("test_error_handling", "Always fails", (ctx) -> {
                    throw new IllegalStateException("This tool intentionally returns an error for testing");
                }),
                Tool.builder("test_sampling", SamplingInput.class)
                        .description("Asks the client's model to answer a prompt")
                        .effect(Effect.READ)
                        .requires(RULE)
                        .execute((in, ctx) -> {
                            SamplingResult answer = ctx.channel().sample(SamplingRequest.ask(in.prompt(), 100));
                            return ContentResult.of(Content.text("LLM response: " + answer.text()));
                        })
                        .build(),
                Tool.builder("test_elicitation", ElicitationInput.class)
                        .description("Asks the client's user for a username and an email address")
                        .effect(Effect.READ)
                        .requires(RULE)
                        .execute((in, ctx) -> {
                            Elicitation answer = ctx.channel().elicit(in.message(), schema("""
                                    {"type":"object","properties":{
                                      "username":{"type":"string","description":"User's response"},
                                      "email":{"type":"string","description":"User's email address"}},
                                     "required":["username","email"]}"""));
                            return ContentResult.of(Content.text("User response: action=" + action(answer)
                                    + ", content=" + answer.content()));
                        })
                        .build(),
                noInput("test_elicitation_sep1034_defaults", "Elicits values with defaults of every primitive type", (ctx) -> {
                    Elicitation answer = ctx.channel().elicit("Please review and update the form fields with defaults", schema("""
                            {"type":"object","properties":{
                              "name":{"type":"string","description":"User name","default":"John Doe"},
                              "age":{"type":"integer","description":"User age","default":30},
                              "score":{"type":"number","description":"User score","default":95.5},
                              "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
                              "verified":{"type":"boolean","description":"Verification status","default":true}},
                             "required":[]}"""));
                    return completed(answer);
                }),
                noInput("test_elicitation_sep1330_enums", "Elicits the five enum forms", (ctx) -> {
                    Elicitation answer = ctx.channel().elicit("Please select options from the enum fields", schema("""
                            {"type":"object","properties":{
                              "untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
                              "titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[
                                {"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},
                                {"const":"value3","title":"Third Option"}]},
                              "legacyEnum":{"type":"string","description":"Select one option (legacy)",
                                "enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
                              "untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,
                                "items":{"type":"string","enum":["option1","option2","option3"]}},
                              "titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,
                                "items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},
                                  {"const":"value3","title":"Third Choice"}]}}},
                             "required":[]}"""));
                    return completed(answer);
                }),
                Tool.builder("json_schema_2020_12_tool", schema("""
                                {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
                                 "$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
                                 "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},
                                 "additionalProperties":false}"""))
                        .description("Tool with JSON Schema 2020-12 features")
                        .effect(Effect.READ)
                        .requires(RULE)
                        .execute((in, ctx) -> ContentResult.of(Content.text("Received: " + in)))
                        .build(),
                noInput("test_reconnection", "Takes a moment, so the server may close its stream and the client resume", (ctx) -> {
                    Thread.sleep(200);
                    return ContentResult.of(Content.text("Reconnection test completed successfully"));
                }));
    }

    static McpCatalog catalog() {
        return McpCatalog.create()
                .add(McpResource.builder("test://static-text", "static-text")
                        .description("A static text resource").mimeType("text/plain").requires(RULE)
                        .reader(request -> List.of(McpContents.text(request.uri(), "text/plain",
                                "This is the content of the static text resource.")))
                        .build())
                .add(McpResource.builder("test://static-binary", "static-binary")
                        .description("A static binary resource (a PNG)").mimeType("image/png").requires(RULE)
                        .reader(request -> List.of(McpContents.blob(request.uri(), "image/png", PNG)))
                        .build())
                .add(McpResource.builder("test://watched-resource", "watched-resource")
                        .description("A resource clients may subscribe to").mimeType("text/plain").requires(RULE)
                        .reader(request -> List.of(McpContents.text(request.uri(), "text/plain", "Watched resource content")))
                        .build())
                .add(McpResourceTemplate.builder("test://template/{id}/data", "template-data")
                        .description("Data for an id").mimeType("application/json").requires(RULE)
                        .reader(request -> {
                            String id = request.variables().get("id");
                            String json = Json.mapper().writeValueAsString(Map.of("id", id, "templateTest", true,
                                    "data", "Data for ID: " + id));
                            return List.of(McpContents.text(request.uri(), "application/json", json));
                        })
                        .build())
                .add(McpPrompt.builder("test_simple_prompt")
                        .description("A simple prompt without arguments").requires(RULE)
                        .renderer(request -> List.of(McpPromptMessage.text(McpPromptMessage.Role.USER,
                                "This is a simple prompt for testing.")))
                        .build())
                .add(McpPrompt.builder("test_prompt_with_arguments")
                        .description("A prompt with two required arguments").requires(RULE)
                        .argument("arg1", "First test argument", true)
                        .argument("arg2", "Second test argument", true)
                        .complete("arg1", request -> Stream.of("paris", "park", "party")
                                .filter(value -> value.startsWith(request.value())).toList())
                        .renderer(request -> List.of(McpPromptMessage.text(McpPromptMessage.Role.USER,
                                "Prompt with arguments: arg1='" + request.arguments().get("arg1") + "', arg2='"
                                        + request.arguments().get("arg2") + "'")))
                        .build())
                .add(McpPrompt.builder("test_prompt_with_embedded_resource")
                        .description("A prompt that embeds a resource").requires(RULE)
                        .argument("resourceUri", "URI of the resource to embed", true)
                        .renderer(request -> List.of(
                                McpPromptMessage.resource(McpPromptMessage.Role.USER, McpContents.text(
                                        request.arguments().get("resourceUri"), "text/plain", "Embedded resource content for testing.")),
                                McpPromptMessage.text(McpPromptMessage.Role.USER, "Please process the embedded resource above.")))
                        .build())
                .add(McpPrompt.builder("test_prompt_with_image")
                        .description("A prompt with an image").requires(RULE)
                        .renderer(request -> List.of(
                                McpPromptMessage.image(McpPromptMessage.Role.USER, PNG, "image/png"),
                                McpPromptMessage.text(McpPromptMessage.Role.USER, "Please analyze the image above.")))
                        .build());
    }

    /** A READ tool without arguments behind {@link #RULE}. */
    private static Tool<NoInput, ContentResult> noInput(String name, String description, Body body) {
        return Tool.builder(name, NoInput.class)
                .description(description)
                .effect(Effect.READ)
                .requires(RULE)
                .execute((in, ctx) -> body.run(ctx))
                .build();
    }

    @FunctionalInterface
    private interface Body {
        ContentResult run(dev.toolgate.tool.ToolContext context) throws Exception;
    }

    private static ObjectNode schema(String json) {
        return (ObjectNode) Json.mapper().readTree(json);
    }

    private static String action(Elicitation answer) {
        return answer.action().name().toLowerCase(java.util.Locale.ROOT);
    }

    private static ContentResult completed(Elicitation answer) {
        return ContentResult.of(Content.text("Elicitation completed: action=" + action(answer) + ", content=" + answer.content()));
    }
}
