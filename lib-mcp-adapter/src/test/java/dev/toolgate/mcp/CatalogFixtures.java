package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.mcp.McpPromptMessage.Role;
import dev.toolgate.tool.Content;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import tools.jackson.databind.node.ObjectNode;

/**
 * A catalog like the conformance suite's fixtures (test://static-text, test://static-binary,
 * test://template/{id}/data, test://watched-resource, the four test prompts), plus entries only
 * principals holding {@code ticket.write} may see (carol yes, bob no), and ones that fail.
 */
final class CatalogFixtures {

    static final String STATIC_TEXT = "This is the content of the static text resource.";
    /** A 1x1 PNG. */
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");
    static final String SECRET = "the launch is on tuesday";
    static final String LEAK = "password=hunter2 at jdbc:postgresql://db.internal";

    /** The variables each template read received, in order. */
    final List<Map<String, String>> templateReads = new CopyOnWriteArrayList<>();
    final McpCatalog catalog;

    CatalogFixtures(boolean withSecrets) {
        catalog = McpCatalog.create()
                .add(McpResource.builder("test://static-text", "static-text").title("Static text")
                        .description("A static text resource").mimeType("text/plain")
                        .reader(r -> List.of(McpContents.text(r.uri(), "text/plain", STATIC_TEXT))).build())
                .add(McpResource.builder("test://static-binary", "static-binary").description("A PNG").mimeType("image/png")
                        .reader(r -> List.of(McpContents.blob(r.uri(), "image/png", PNG))).build())
                .add(McpResource.builder("test://watched-resource", "watched").description("Changes now and then")
                        .mimeType("text/plain").requires("ticket.read")
                        .reader(r -> List.of(McpContents.text(r.uri(), "text/plain", "watched by " + r.principal().id()))).build())
                .add(McpResource.builder("test://broken", "broken").description("Its reader fails")
                        .reader(r -> {
                            throw new IllegalStateException(LEAK);
                        }).build())
                .add(McpResource.builder("test://empty", "empty").description("Its reader finds nothing")
                        .reader(r -> List.of()).build())
                .add(McpResourceTemplate.builder("test://template/{id}/data", "template-data")
                        .description("Data by id").mimeType("application/json")
                        .reader(r -> {
                            templateReads.add(r.variables());
                            ObjectNode json = Json.object();
                            json.put("id", r.variables().get("id"));
                            json.put("templateTest", true);
                            json.put("data", "Data for ID: " + r.variables().get("id"));
                            return List.of(McpContents.text(r.uri(), "application/json", Json.write(json)));
                        })
                        .complete("id", r -> IntStream.range(0, 150).mapToObj(i -> r.value() + i).toList())
                        .build())
                .add(McpPrompt.builder("test_simple_prompt").description("A simple prompt")
                        .renderer(r -> List.of(McpPromptMessage.text(Role.USER, "This is a simple prompt for testing."))).build())
                .add(McpPrompt.builder("test_prompt_with_arguments").description("A prompt with arguments")
                        .argument("arg1", "First test argument", true)
                        .argument("arg2", "Second test argument", true)
                        .complete("arg1", r -> List.of("paris", "park", "lyon").stream().filter(v -> v.startsWith(r.value())).toList())
                        .renderer(r -> List.of(McpPromptMessage.text(Role.USER, "Prompt with arguments: arg1='"
                                + r.arguments().get("arg1") + "', arg2='" + r.arguments().get("arg2") + "'"))).build())
                .add(McpPrompt.builder("test_prompt_with_embedded_resource").description("A prompt embedding a resource")
                        .argument("resourceUri", "URI of the resource to embed", true)
                        .renderer(r -> List.of(
                                McpPromptMessage.resource(Role.USER, McpContents.text(r.arguments().get("resourceUri"),
                                        "text/plain", "Embedded resource content for testing.")),
                                McpPromptMessage.text(Role.USER, "Please process the embedded resource above."))).build())
                .add(McpPrompt.builder("test_prompt_with_image").description("A prompt with an image")
                        .renderer(r -> List.of(McpPromptMessage.image(Role.USER, PNG, "image/png"),
                                McpPromptMessage.text(Role.USER, "Please analyze the image above."),
                                // any content item of a tool result works in a prompt too
                                McpPromptMessage.of(Role.ASSISTANT, Content.link("test://static-text", "static-text")))).build())
                .add(McpPrompt.builder("broken_prompt").description("Its renderer fails")
                        .renderer(r -> {
                            throw new IllegalStateException(LEAK);
                        }).build());
        if (withSecrets) {
            catalog.add(McpResource.builder("docs://secret/plan", "plan").description("The plan").mimeType("text/plain")
                            .requires("ticket.write")
                            .reader(r -> List.of(McpContents.text(r.uri(), "text/plain", SECRET))).build())
                    .add(McpResourceTemplate.builder("docs://secret/{name}", "secret-docs").description("Secret documents")
                            .requires("ticket.write")
                            .reader(r -> List.of(McpContents.text(r.uri(), "text/plain", "secret " + r.variables().get("name"))))
                            .complete("name", r -> List.of("plan", "budget"))
                            .build())
                    .add(McpPrompt.builder("secret_prompt").description("Only for writers").requires("ticket.write")
                            .argument("topic", "What to write about", true)
                            .complete("topic", r -> List.of("classified-launch"))
                            .renderer(r -> List.of(McpPromptMessage.text(Role.USER, SECRET + " " + r.arguments().get("topic"))))
                            .build());
        }
    }

    /**
     * The standard resolver, except that it refuses a principal whose key was revoked (everything), or
     * whose {@code key/entry-name} was (that entry only); it throws for an entry whose
     * {@code throw/entry-name} was.
     */
    static final class RevocableResolver implements Resolver {

        final Set<String> revoked = ConcurrentHashMap.newKeySet();

        @Override
        public AccessDecision decide(Principal principal, Guarded tool) {
            if (revoked.contains("throw/" + tool.name())) {
                throw new IllegalStateException("resolver down");
            }
            if (revoked.contains(principal.key()) || revoked.contains(principal.key() + "/" + tool.name())) {
                return AccessDecision.missing(Set.of("revoked"));
            }
            return Resolver.standard().decide(principal, tool);
        }
    }

    static Toolgate gate(Resolver resolver) {
        return Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO)
                .resolver(resolver)
                .provider(Fixtures.ticketTools(new Fixtures.Tickets()))
                .build();
    }
}
