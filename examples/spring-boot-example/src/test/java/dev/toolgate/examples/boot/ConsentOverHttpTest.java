package dev.toolgate.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The example as its users meet it, over HTTP: ana's chat request proposes a change (nothing happens),
 * olga approves it in the console through its HTTP API with a console session, and ana's next chat turn
 * tells the model the result. Plus: ana is not an operator, and the chat needs a signed-in user.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.datasource.url=jdbc:h2:mem:example-consent;DB_CLOSE_DELAY=-1")
class ConsentOverHttpTest {

    @LocalServerPort
    int port;
    @Autowired
    IncidentTools incidents;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aChatProposesAnOperatorApprovesInTheConsoleAndTheNextTurnReportsTheResult() throws Exception {
        String first = chat("ana", "ana-demo", "c1", "open an incident: VPN down");
        assertThat(first).contains("incident__create: awaiting_operator").contains("Open incident 'VPN down'");
        assertThat(incidents.open()).isEmpty();

        // ana is a chat user, not an operator: the console refuses her
        assertThat(get("/toolgate/api/session", "ana", "ana-demo").statusCode()).isEqualTo(403);

        HttpResponse<String> session = get("/toolgate/api/session", "olga", "olga-demo");
        assertThat(session.statusCode()).isEqualTo(200);
        String cookie = session.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
        String csrf = Json.parse(session.body()).path("csrf").asString();

        HttpResponse<String> inbox = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox")).GET()
                .header("Authorization", basic("olga", "olga-demo")).header("Cookie", cookie).build());
        JsonNode cards = Json.parse(inbox.body());
        String callId = findCard(cards, "Open incident 'VPN down'");

        HttpResponse<String> approved = send(HttpRequest.newBuilder(uri("/toolgate/api/inbox/" + callId + "/approve"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
                .header("Origin", "http://localhost:" + port).header("X-Toolgate-Csrf", csrf)
                .header("Authorization", basic("olga", "olga-demo")).header("Cookie", cookie).build());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
        assertThat(incidents.open()).containsValue("VPN down");

        String next = chat("ana", "ana-demo", "c1", "any news?");
        assertThat(next).contains("I was told").contains("\"Open incident 'VPN down'\" was applied by the operator")
                .contains("INC-1");
        // told once: the turn after says nothing new
        assertThat(chat("ana", "ana-demo", "c1", "anything else?")).isEqualTo("Nothing new.");
    }

    @Test
    void theChatNeedsASignedInUser() throws Exception {
        HttpResponse<String> anonymous = send(HttpRequest.newBuilder(uri("/chat"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"conversation\":\"c3\",\"message\":\"list\"}"))
                .header("Content-Type", "application/json").build());
        assertThat(anonymous.statusCode()).isEqualTo(401);
    }

    private static String findCard(JsonNode cards, String summary) {
        for (JsonNode card : cards.path("cards")) {
            if (summary.equals(card.path("summary").asString())) {
                return card.path("callId").asString();
            }
        }
        throw new AssertionError("no card '" + summary + "' in " + cards);
    }

    private String chat(String user, String secret, String conversation, String message) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/chat"))
                .POST(HttpRequest.BodyPublishers.ofString(Json.object().put("conversation", conversation)
                        .put("message", message).toString()))
                .header("Content-Type", "application/json").header("Authorization", basic(user, secret)).build());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Json.parse(response.body()).path("answer").asString();
    }

    private HttpResponse<String> get(String path, String user, String secret) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", basic(user, secret)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private static String basic(String user, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }
}
