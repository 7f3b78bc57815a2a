package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document at the well-known path and its
 * path-suffixed form, unauthenticated and GET only, and {@code resource_metadata} in the
 * {@code WWW-Authenticate} of every 401; without it, 401s keep the plain Bearer challenge.
 */
class McpHttpResourceMetadataTest {

    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    private static final ProtectedResourceMetadata METADATA = ProtectedResourceMetadata
            .builder(URI.create("https://mcp.example.com/mcp"))
            .authorizationServers(URI.create("https://login.example.com"), URI.create("https://backup-login.example.com/tenant"))
            .scopesSupported("tools.read", "tools.write")
            .resourceName("Example tools")
            .resourceDocumentation(URI.create("https://docs.example.com/mcp"))
            .build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Toolgate gate;
    private ToolgateMcpServer server;
    private URI endpoint;

    private void start(UnaryOperator<McpHttpBuilder> customize) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        server = customize.apply(ToolgateMcpServer.http(gate, token -> {
            if (token.equals("explode")) {
                throw new IllegalStateException("the identity provider is down");
            }
            return Optional.ofNullable(Fixtures.TOKENS.get(token));
        })).start();
        endpoint = server.endpoint().orElseThrow();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder at(String path) {
        return HttpRequest.newBuilder(endpoint.resolve(path));
    }

    @Test
    void theDocumentIsServedUnauthenticatedAtBothWellKnownPaths() throws Exception {
        start(b -> b.protectedResourceMetadata(METADATA));
        for (String path : List.of("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")) {
            HttpResponse<String> response = send(at(path).GET());
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).hasValue("*");
            JsonNode document = Json.parse(response.body());
            assertThat(document.path("resource").asString()).isEqualTo("https://mcp.example.com/mcp");
            assertThat(document.path("authorization_servers").get(0).asString()).isEqualTo("https://login.example.com");
            assertThat(document.path("authorization_servers").get(1).asString()).isEqualTo("https://backup-login.example.com/tenant");
            assertThat(document.path("scopes_supported").size()).isEqualTo(2);
            assertThat(document.path("scopes_supported").get(1).asString()).isEqualTo("tools.write");
            assertThat(document.path("bearer_methods_supported").get(0).asString()).isEqualTo("header");
            assertThat(document.path("resource_name").asString()).isEqualTo("Example tools");
            assertThat(document.path("resource_documentation").asString()).isEqualTo("https://docs.example.com/mcp");
        }
        assertThat(send(at("/.well-known/oauth-protected-resource").POST(HttpRequest.BodyPublishers.ofString("{}"))).statusCode())
                .isEqualTo(405);
        assertThat(send(at("/.well-known/oauth-protected-resource").DELETE()).headers().firstValue("Allow")).hasValue("GET");
        assertThat(send(at("/.well-known/oauth-protected-resource/other").GET()).statusCode()).isEqualTo(404);
        assertThat(send(at("/.well-known/oauth-authorization-server").GET()).statusCode()).isEqualTo(404);
    }

    @Test
    void every401NamesTheMetadataAndTheScopes() throws Exception {
        start(b -> b.protectedResourceMetadata(METADATA));
        String expected = "Bearer realm=\"toolgate\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", "
                + "scope=\"tools.read tools.write\"";
        HttpRequest.Builder post = HttpRequest.newBuilder(endpoint).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(LIST));
        HttpResponse<String> missing = send(post.copy());
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(missing.headers().allValues("WWW-Authenticate")).containsExactly(expected);

        HttpResponse<String> basic = send(post.copy().header("Authorization", "Basic YWxpY2U6c2VjcmV0"));
        assertThat(basic.statusCode()).isEqualTo(401);
        assertThat(basic.headers().allValues("WWW-Authenticate")).containsExactly(expected);

        String refused = expected + ", error=\"invalid_token\", error_description=\"The bearer token is not valid\"";
        for (String token : List.of("wrong-token", "explode")) {
            HttpResponse<String> invalid = send(post.copy().header("Authorization", "Bearer " + token));
            assertThat(invalid.statusCode()).as(token).isEqualTo(401);
            assertThat(invalid.headers().allValues("WWW-Authenticate")).as(token).containsExactly(refused);
        }
        for (HttpRequest.Builder other : List.of(HttpRequest.newBuilder(endpoint).header("Accept", "text/event-stream").GET(),
                HttpRequest.newBuilder(endpoint).DELETE(), HttpRequest.newBuilder(endpoint).PUT(HttpRequest.BodyPublishers.noBody()))) {
            HttpResponse<String> answer = send(other);
            assertThat(answer.statusCode()).isEqualTo(401);
            assertThat(answer.headers().allValues("WWW-Authenticate")).containsExactly(expected);
        }
    }

    @Test
    void withoutMetadataThereIsNoDocumentAndThePlainChallenge() throws Exception {
        start(b -> b);
        assertThat(send(at("/.well-known/oauth-protected-resource").GET()).statusCode()).isEqualTo(404);
        assertThat(send(at("/.well-known/oauth-protected-resource/mcp").GET()).statusCode()).isEqualTo(404);
        HttpResponse<String> missing = send(HttpRequest.newBuilder(endpoint).DELETE());
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(missing.headers().allValues("WWW-Authenticate")).containsExactly("Bearer realm=\"toolgate\"");
    }

    @Test
    void theRootResourceAndAnotherEndpointPathAreServedToo() throws Exception {
        start(b -> b.endpoint("/tools/mcp").protectedResourceMetadata(ProtectedResourceMetadata
                .builder(URI.create("https://mcp.example.com")).authorizationServers(URI.create("https://login.example.com")).build()));
        assertThat(send(at("/.well-known/oauth-protected-resource").GET()).statusCode()).isEqualTo(200);
        assertThat(send(at("/.well-known/oauth-protected-resource/tools/mcp").GET()).statusCode()).isEqualTo(200);
        HttpResponse<String> missing = send(HttpRequest.newBuilder(endpoint).DELETE());
        assertThat(missing.headers().firstValue("WWW-Authenticate")).hasValue(
                "Bearer realm=\"toolgate\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\"");
    }

    @Test
    void badMetadataIsRefusedWhenBuilt() {
        for (String bad : List.of("ftp://mcp.example.com/mcp", "/mcp", "https://mcp.example.com/mcp#frag", "mailto:a@b.c", "https:///mcp")) {
            assertThatThrownBy(() -> ProtectedResourceMetadata.builder(URI.create(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resource");
        }
        ProtectedResourceMetadata.Builder builder = ProtectedResourceMetadata.builder(URI.create("https://mcp.example.com/mcp"));
        for (String scope : new String[] {"two words", "quo\"te", "back\\slash", "", "line\nbreak", null}) {
            assertThatThrownBy(() -> builder.scopesSupported(scope)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("scope");
        }
        assertThatThrownBy(() -> builder.authorizationServers(URI.create("login.example.com")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("authorization server");
    }
}
