package dev.toolgate.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.spi.InMemoryStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How an OpenAPI source behaves on the wire, against real local HTTP servers that record every
 * request: credentials arrive exactly as configured and never come back out, values are serialized as
 * their OpenAPI style says and percent-encoded, responses of every shape become bounded results,
 * redirects stay on their origin, deadlines hold for reads and writes, concurrent calls do not mix,
 * and a document fetched by URL fails plainly and recovers on a refresh.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpBehaviourTest {

    static final Principal CAROL = Principal.user("carol", "api.use");

    static final String TOKEN = "bt_7Qx9LmZ2vR4kP8sW1";
    static final String USER = "svc-reporting";
    /** A colon, a space and a non-ASCII letter: basic authentication must carry them exactly. */
    static final String PASSWORD = "pw:Zq8!rT5 yU~ü";
    static final String HEADER_KEY = "hk-3Nf8Jd2Lq9Xc";
    /** Every character here needs percent-encoding in a query: it must arrive decoded to exactly this. */
    static final String QUERY_KEY = "qk/9f+Zx7=Lm&Q2 é";
    static final long BIG = 50L * 1024 * 1024;

    static final String DOCUMENT = """
            openapi: 3.1.0
            info: {title: Behaviour API, version: "1.0"}
            servers: [{url: "https://elsewhere.example/v1"}]
            paths:
              /r/{kind}:
                get:
                  operationId: read
                  parameters:
                    - {name: kind, in: path, required: true, schema: {type: string}}
                    - {name: q, in: query, schema: {type: string}}
                  responses: {"200": {description: ok}}
              /w/{kind}:
                post:
                  operationId: write
                  parameters:
                    - {name: kind, in: path, required: true, schema: {type: string}}
                  requestBody:
                    required: true
                    content: {application/json: {schema: {type: object}}}
                  responses: {"200": {description: ok}}
              /form:
                get:
                  operationId: form
                  parameters:
                    - {name: ids, in: query, schema: {type: array, items: {type: integer}}}
                    - {name: tags, in: query, explode: false, schema: {type: array, items: {type: string}}}
                    - {name: sp, in: query, style: spaceDelimited, explode: false, schema: {type: array, items: {type: string}}}
                    - {name: pp, in: query, style: pipeDelimited, explode: false, schema: {type: array, items: {type: string}}}
                    - {name: filter, in: query, style: deepObject, explode: true, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: point, in: query, schema: {type: object, properties: {x: {type: integer}, y: {type: integer}}}}
                    - {name: box, in: query, explode: false, schema: {type: object, properties: {w: {type: integer}, h: {type: integer}}}}
                    - {name: where, in: query, content: {application/json: {schema: {type: object}}}}
                    - {name: text, in: query, schema: {type: string}}
                  responses: {"200": {description: ok}}
              /simple/{list}/{obj}/{objx}/{name}:
                get:
                  operationId: simplePath
                  parameters:
                    - {name: list, in: path, required: true, schema: {type: array, items: {type: integer}}}
                    - {name: obj, in: path, required: true, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: objx, in: path, required: true, explode: true, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: name, in: path, required: true, schema: {type: string}}
                  responses: {"200": {description: ok}}
              /label/{one}/{list}/{listx}/{obj}/{objx}:
                get:
                  operationId: labelPath
                  parameters:
                    - {name: one, in: path, required: true, style: label, schema: {type: integer}}
                    - {name: list, in: path, required: true, style: label, schema: {type: array, items: {type: integer}}}
                    - {name: listx, in: path, required: true, style: label, explode: true, schema: {type: array, items: {type: integer}}}
                    - {name: obj, in: path, required: true, style: label, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: objx, in: path, required: true, style: label, explode: true, schema: {$ref: "#/components/schemas/Person"}}
                  responses: {"200": {description: ok}}
              /matrix/{one}/{list}/{listx}/{obj}/{objx}/{where}:
                get:
                  operationId: matrixPath
                  parameters:
                    - {name: one, in: path, required: true, style: matrix, schema: {type: integer}}
                    - {name: list, in: path, required: true, style: matrix, schema: {type: array, items: {type: integer}}}
                    - {name: listx, in: path, required: true, style: matrix, explode: true, schema: {type: array, items: {type: integer}}}
                    - {name: obj, in: path, required: true, style: matrix, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: objx, in: path, required: true, style: matrix, explode: true, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: where, in: path, required: true, content: {application/json: {schema: {type: object}}}}
                  responses: {"200": {description: ok}}
              /headers:
                get:
                  operationId: headers
                  parameters:
                    - {name: X-Ids, in: header, schema: {type: array, items: {type: integer}}}
                    - {name: X-Meta, in: header, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: X-Metax, in: header, explode: true, schema: {$ref: "#/components/schemas/Person"}}
                    - {name: X-Where, in: header, content: {application/json: {schema: {type: object}}}}
                  responses: {"200": {description: ok}}
            components:
              schemas:
                Person:
                  type: object
                  properties: {role: {type: string}, firstName: {type: string}}
            """;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final Map<String, String> secrets = new ConcurrentHashMap<>(Map.of("token", TOKEN, "user", USER,
            "password", PASSWORD, "header-key", HEADER_KEY, "query-key", QUERY_KEY));
    private final AtomicLong bigSent = new AtomicLong();
    private final CompletableFuture<String> bigEnded = new CompletableFuture<>();
    private ApiServer api;
    /** Another origin: same host, another port. */
    private ApiServer other;

    @BeforeEach
    void startServers() throws IOException {
        api = ApiServer.start(8);
        closing.add(api);
        other = ApiServer.start();
        closing.add(other);
        other.on("GET", ".*", s -> ApiServer.Answer.json(200, "{\"other\":true}"));
        other.on("POST", ".*", s -> ApiServer.Answer.json(200, "{\"other\":true}"));

        api.on("GET", "/v1/r/echo", HttpBehaviourTest::echo);
        api.on("POST", "/v1/w/echo", HttpBehaviourTest::echo);
        api.on("GET", "/v1/r/denied", s -> ApiServer.Answer.json(401, Json.write(Json.object()
                .put("message", "the credential was refused").set("detail", received(s)))));
        api.on("GET", "/v1/(form|simple|label|matrix|headers)(/.*)?", s -> ApiServer.Answer.json(200, "{\"ok\":true}"));

        api.on("GET", "/v1/r/json", s -> ApiServer.Answer.json(200, "{\"n\":1,\"list\":[1,2],\"name\":\"caf\u00e9\"}"));
        api.on("GET", "/v1/r/text", s -> ApiServer.Answer.text(200, "text/plain; charset=utf-8", "h\u00e9llo\nw\u00f6rld"));
        api.on("GET", "/v1/r/latin1", s -> new ApiServer.Answer(200, "text/plain; charset=ISO-8859-1",
                "caf\u00e9 cr\u00e8me".getBytes(StandardCharsets.ISO_8859_1), Map.of()));
        api.on("GET", "/v1/r/empty", s -> new ApiServer.Answer(204, null, new byte[0], Map.of()));
        api.on("GET", "/v1/r/binary", s -> {
            byte[] png = new byte[2048];
            for (int i = 0; i < png.length; i++) {
                png[i] = (byte) (i * 31);
            }
            return new ApiServer.Answer(200, "image/png", png, Map.of());
        });
        api.on("GET", "/v1/r/notjson", s -> ApiServer.Answer.text(200, "application/json", "<html>Bad gateway</html>"));
        api.on("GET", "/v1/r/missing", s -> ApiServer.Answer.json(404, "{\"message\":\"no such thing\"}"));
        api.on("GET", "/v1/r/down", s -> ApiServer.Answer.text(503, "text/plain", "down for maintenance"));
        api.on("GET", "/v1/r/hugeerror", s -> ApiServer.Answer.text(500, "text/plain",
                "ERR-START " + "e".repeat(1024 * 1024) + " ERR-END"));
        api.raw("GET", "/v1/r/big", (seen, exchange) -> {
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            try {
                exchange.sendResponseHeaders(200, BIG);
                OutputStream out = exchange.getResponseBody();
                for (long sent = 0; sent < BIG; sent += chunk.length) {
                    out.write(chunk);
                    bigSent.addAndGet(chunk.length);
                }
                out.close();
                bigEnded.complete("sent all");
            } catch (IOException e) {
                bigEnded.complete("the client hung up");
            }
        });

        api.on("GET", "/v1/r/moved", s -> ApiServer.Answer.redirect(302, "/v1/r/echo?q=moved"));
        api.on("GET", "/v1/r/moved307", s -> ApiServer.Answer.redirect(307, api.url("/v1/r/echo?q=moved307").toString()));
        api.on("GET", "/v1/r/hop-(\\d+)-(\\d+)", s -> {
            String[] parts = s.rawPath().replaceAll(".*/hop-", "").split("-");
            int hop = Integer.parseInt(parts[0]);
            int of = Integer.parseInt(parts[1]);
            return hop < of ? ApiServer.Answer.redirect(302, "/v1/r/hop-" + (hop + 1) + "-" + of)
                    : ApiServer.Answer.json(200, "{\"hops\":" + hop + "}");
        });
        api.on("GET", "/v1/r/away", s -> ApiServer.Answer.redirect(302, other.url("/v1/r/echo").toString()));
        api.on("POST", "/v1/w/away", s -> ApiServer.Answer.redirect(307, other.url("/v1/w/echo").toString()));
        api.on("POST", "/v1/w/seeother", s -> ApiServer.Answer.redirect(303, "/v1/r/echo?q=created"));
        // a server that keeps the query on its redirect, as trailing-slash redirects do
        api.on("GET", "/v1/r/keepsquery", s -> ApiServer.Answer.redirect(301, "/v1/r/echo?" + s.rawQuery()));

        api.raw("GET", "/v1/r/stall", HttpBehaviourTest::stall);
        api.raw("POST", "/v1/w/stall", HttpBehaviourTest::stall);
        api.raw("GET", "/v1/r/trickle", (seen, exchange) -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            try {
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                out.write('[');
                out.flush();
                for (int i = 0; i < 600; i++) {
                    Thread.sleep(100);
                    out.write("1,".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away
            }
        });
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // fixtures

    /**
     * Everything the request carried, each piece as its own string under an innocent key, so that no
     * redactor heuristic (a sensitive key, a {@code key=value} shape) hides it: the header values as
     * they arrived, the query raw and decoded, and the query key's raw (percent-encoded) value alone.
     */
    static JsonNode received(ApiServer.Seen s) {
        tools.jackson.databind.node.ArrayNode seen = Json.object().arrayNode();
        seen.add(String.valueOf(s.header("Authorization")));
        seen.add(String.valueOf(s.header("X-API-Key")));
        seen.add(String.valueOf(s.rawQuery()));
        seen.add(s.rawQuery() == null ? "null" : URLDecoder.decode(s.rawQuery(), StandardCharsets.UTF_8));
        if (s.rawQuery() != null) {
            for (String pair : s.rawQuery().split("&")) {
                if (pair.startsWith("api_key=")) {
                    seen.add(pair.substring("api_key=".length()));
                }
            }
        }
        String authorization = s.header("Authorization");
        if (authorization != null && authorization.startsWith("Basic ")) {
            seen.add(authorization.substring("Basic ".length()));
        }
        return seen;
    }

    static ApiServer.Answer echo(ApiServer.Seen s) {
        ObjectNode echo = Json.object().put("method", s.method()).put("path", s.rawPath());
        String q = queryValues(s.rawQuery(), "q").stream().findFirst().orElse(null);
        echo.put("q", q);
        echo.set("received", received(s));
        echo.put("body", s.bodyText());
        return ApiServer.Answer.json(200, Json.write(echo));
    }

    static void stall(ApiServer.Seen seen, com.sun.net.httpserver.HttpExchange exchange) throws InterruptedException {
        Thread.sleep(60_000);
    }

    /** The decoded values of one query parameter, in order. */
    static List<String> queryValues(String rawQuery, String name) {
        List<String> values = new ArrayList<>();
        if (rawQuery == null) {
            return values;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                values.add(eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    /** RFC 3986 percent-encoding, independent of the code under test. */
    static String percent(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A")
                .replace("%7E", "~");
    }

    static String basic(String user, String password) {
        return Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** Every form in which a secret could travel back: as is, percent- or form-encoded, and as the basic pair. */
    static List<String> secretForms() {
        List<String> forms = new ArrayList<>();
        for (String secret : List.of(TOKEN, USER, PASSWORD, HEADER_KEY, QUERY_KEY, "qk_rotated_4242", "bt_rotated_9n8m7")) {
            forms.add(secret);
            forms.add(percent(secret));
            forms.add(URLEncoder.encode(secret, StandardCharsets.UTF_8));
        }
        forms.add(basic(USER, PASSWORD));
        forms.add(USER + ":" + PASSWORD);
        return forms;
    }

    static void assertNoSecret(String what, String text) {
        if (text == null) {
            return;
        }
        for (String form : secretForms()) {
            assertThat(text).as(what + " must not carry a credential").doesNotContain(form);
        }
    }

    static void assertNoSecret(String what, CallRecord record) {
        assertNoSecret(what + " (audit result)", record.resultJson());
        assertNoSecret(what + " (audit error)", record.error());
        assertNoSecret(what + " (audit summary)", record.summary());
        assertNoSecret(what + " (audit payload)", record.payloadJson());
    }

    OpenApiSource.Builder source() {
        return OpenApiSource.builder("api").documentText(DOCUMENT).server(api.url("/v1")).requires("api.use");
    }

    Toolgate gate(OpenApiSource source) {
        return gate(source, Duration.ofSeconds(10));
    }

    Toolgate gate(OpenApiSource source, Duration callTimeout) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO).resultLimitBytes(256 * 1024)
                .budget(ToolBudget.unlimited())
                .secrets(name -> Optional.ofNullable(secrets.get(name)))
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(10), callTimeout)
                .source(source).build();
        closing.add(gate);
        return gate;
    }

    static CallContext ctx() {
        return CallContext.of(CAROL).withSession("s-1").withTenant("acme");
    }

    static Executed read(Toolgate gate, String tool, String arguments) {
        return (Executed) gate.call(ctx(), "openapi:api." + tool, arguments);
    }

    static Executed read(Toolgate gate, String kind) {
        return read(gate, "read", "{\"path\":{\"kind\":\"" + kind + "\"}}");
    }

    static Proposal propose(Toolgate gate, String kind, String body) {
        return (Proposal) gate.call(ctx(), "openapi:api.write", "{\"path\":{\"kind\":\"" + kind + "\"},\"body\":" + body + "}");
    }

    static Applied write(Toolgate gate, String kind, String body) {
        return gate.apply(ctx(), propose(gate, kind, body).token());
    }

    /** The failure of {@code call}, which must be a {@link ToolExecutionException} (or a subtype). */
    static ToolExecutionException failure(Runnable call) {
        ToolExecutionException e = catchThrowableOfType(ToolExecutionException.class, call::run);
        assertThat(e).as("the call fails as a ToolExecutionException").isNotNull();
        return e;
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Credentials {

        OpenApiSource.Builder keyed() {
            return source().bearerSecret("token").apiKeyHeader("X-API-Key", "header-key").apiKeyQuery("api_key", "query-key");
        }

        @Test
        void bearerHeaderKeyAndQueryKeyArriveExactlyAsConfigured() {
            Toolgate gate = gate(keyed().build());
            read(gate, "read", "{\"path\":{\"kind\":\"echo\"},\"query\":{\"q\":\"plain\"}}");

            ApiServer.Seen seen = api.apiRequests().get(0);
            assertThat(seen.header("Authorization")).isEqualTo("Bearer " + TOKEN);
            assertThat(seen.header("X-API-Key")).isEqualTo(HEADER_KEY);
            assertThat(seen.headers().get("x-api-key")).as("sent once").hasSize(1);
            assertThat(seen.rawQuery()).isEqualTo("q=plain&api_key=" + percent(QUERY_KEY));
            assertThat(queryValues(seen.rawQuery(), "api_key")).containsExactly(QUERY_KEY);
        }

        @Test
        void basicIsBase64OfUserColonPassword() {
            Toolgate gate = gate(source().basicSecrets("user", "password").build());
            read(gate, "echo");
            String authorization = api.apiRequests().get(0).header("Authorization");
            assertThat(authorization).isEqualTo("Basic " + basic(USER, PASSWORD));
            String decoded = new String(Base64.getDecoder().decode(authorization.substring("Basic ".length())),
                    StandardCharsets.UTF_8);
            assertThat(decoded).isEqualTo(USER + ":" + PASSWORD);
        }

        @Test
        void credentialsEchoedByTheApiNeverReachTheResultTheAuditOrTheProposal() {
            Toolgate gate = gate(keyed().build());
            Executed executed = read(gate, "echo");
            assertThat(executed.result().path("body").path("received").size())
                    .as("the API did echo its request back").isEqualTo(5);
            assertNoSecret("the read's result", executed.result().toString());
            assertNoSecret("the read", gate.findCall(executed.callId()).orElseThrow());

            Proposal proposal = propose(gate, "echo", "{\"note\":\"hello\"}");
            assertThat(proposal.summary()).contains("POST " + api.url("/v1/w/echo"));
            assertNoSecret("the proposal summary", proposal.summary());
            assertNoSecret("the proposal payload", proposal.payload().toString());
            Applied applied = gate.apply(ctx(), proposal.token());
            assertThat(applied.result().path("body").path("method").asString()).isEqualTo("POST");
            assertNoSecret("the write's result", applied.result().toString());
            assertNoSecret("the applied summary", applied.summary());
            assertNoSecret("the write", gate.findCall(applied.callId()).orElseThrow());
        }

        @Test
        void basicCredentialsEchoedByTheApiNeverComeBack() {
            Toolgate gate = gate(source().basicSecrets("user", "password").build());
            Executed executed = read(gate, "echo");
            assertThat(api.apiRequests().get(0).header("Authorization")).startsWith("Basic ");
            assertNoSecret("the read's result", executed.result().toString());
            assertNoSecret("the read", gate.findCall(executed.callId()).orElseThrow());

            ToolExecutionException error = failure(() -> read(gate, "denied"));
            assertThat(error.getMessage()).contains("HTTP 401");
            assertNoSecret("the error", error.getMessage());
            assertNoSecret("the failed read", gate.findCall(error.callId()).orElseThrow());
        }

        @Test
        void credentialsEchoedInAnErrorBodyNeverReachTheMessageOrTheAudit() {
            Toolgate gate = gate(keyed().build());
            ToolExecutionException error = failure(() -> read(gate, "denied"));
            assertThat(error.getMessage()).contains("HTTP 401").contains("the credential was refused");
            assertNoSecret("the error", error.getMessage());
            CallRecord record = gate.findCall(error.callId()).orElseThrow();
            assertThat(record.status()).isEqualTo(CallStatus.FAILED);
            assertNoSecret("the failed read", record);
        }

        @Test
        void aFailedRequestWithAQueryKeyNamesNoQueryInItsMessage() throws Exception {
            Toolgate gate = gate(keyed().build());
            // an HTTP error
            api.on("GET", "/v1/r/broken", s -> ApiServer.Answer.text(500, "text/plain", "internal error"));
            ToolExecutionException httpError = failure(() -> read(gate, "broken"));
            assertThat(httpError.getMessage()).contains("HTTP 500").contains("/v1/r/broken");
            assertThat(api.apiRequests().get(0).rawQuery()).contains("api_key=");
            // a connection dropped before any answer
            try (Dropper dropper = new Dropper()) {
                Toolgate droppedGate = gate(OpenApiSource.builder("api").documentText(DOCUMENT)
                        .server(dropper.url("/v1")).requires("api.use").bearerSecret("token")
                        .apiKeyQuery("api_key", "query-key").build());
                ToolExecutionException reset = failure(() -> read(droppedGate, "read",
                        "{\"path\":{\"kind\":\"echo\"},\"query\":{\"q\":\"x\"}}"));
                assertThat(dropper.requestLines()).as("the request went out with its key")
                        .anySatisfy(line -> assertThat(line).contains("api_key="));
                assertThat(reset.getMessage()).contains("/v1/r/echo");
                for (ToolExecutionException e : List.of(httpError, reset)) {
                    assertThat(e.getMessage()).doesNotContain("api_key").doesNotContain("?");
                    assertNoSecret("the message", e.getMessage());
                    assertNoSecret("the record", (e == reset ? droppedGate : gate).findCall(e.callId()).orElseThrow());
                }
            }
            // nothing listening
            Toolgate refusedGate = gate(OpenApiSource.builder("api").documentText(DOCUMENT)
                    .server(URI.create("http://127.0.0.1:" + PetstoreSourceTest.freePort() + "/v1"))
                    .apiKeyQuery("api_key", "query-key").build());
            ToolExecutionException refused = failure(() -> refusedGate.call(CallContext.of(Principal.user("carol", "*")),
                    "openapi:api.read", "{\"path\":{\"kind\":\"echo\"},\"query\":{\"q\":\"x\"}}"));
            assertThat(refused).isInstanceOf(SourceUnavailableException.class);
            assertThat(refused.getMessage()).doesNotContain("api_key").doesNotContain("?");
            assertNoSecret("the message", refused.getMessage());
        }

        @Test
        void aRotatedSecretIsUsedOnTheNextCallWithoutRebuilding() {
            Toolgate gate = gate(keyed().build());
            read(gate, "echo");
            secrets.put("token", "bt_rotated_9n8m7");
            secrets.put("query-key", "qk_rotated_4242");
            Executed second = read(gate, "echo");

            List<ApiServer.Seen> seen = api.apiRequests();
            assertThat(seen).hasSize(2);
            assertThat(seen.get(0).header("Authorization")).isEqualTo("Bearer " + TOKEN);
            assertThat(seen.get(1).header("Authorization")).isEqualTo("Bearer bt_rotated_9n8m7");
            assertThat(queryValues(seen.get(1).rawQuery(), "api_key")).containsExactly("qk_rotated_4242");
            assertNoSecret("the result after rotation", second.result().toString());
            assertNoSecret("the record after rotation", gate.findCall(second.callId()).orElseThrow());
        }

        @Test
        void aMissingSecretFailsAsUnavailableAndSendsNothing() {
            Toolgate gate = gate(keyed().build());
            secrets.remove("header-key");
            ToolExecutionException missing = failure(() -> read(gate, "echo"));
            assertThat(missing).isInstanceOf(SourceUnavailableException.class);
            assertThat(missing.getMessage()).contains("header-key");
            assertThat(((SourceUnavailableException) missing).sourceId()).isEqualTo("openapi:api");

            Toolgate basicGate = gate(source().basicSecrets("user", "password").build());
            secrets.remove("password");
            ToolExecutionException noPassword = failure(() -> write(basicGate, "echo", "{}"));
            assertThat(noPassword).isInstanceOf(SourceUnavailableException.class);
            assertThat(noPassword.getMessage()).contains("'password'");
            assertNoSecret("the message", noPassword.getMessage());
            assertThat(api.apiRequests()).as("nothing was sent").isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Serialization {

        @Test
        void queryParametersFollowTheirStyle() {
            Toolgate gate = gate(source().build());
            read(gate, "form", """
                    {"query": {"ids": [3, 4, 5], "tags": ["a", "b c"], "sp": ["x", "y"], "pp": ["x", "y"],
                      "filter": {"role": "admin", "firstName": "Alex"}, "point": {"x": 1, "y": 2},
                      "box": {"w": 3, "h": 4}, "where": {"a": [1, "b c"]}, "text": "plain"}}""");
            String raw = api.apiRequests().get(0).rawQuery();
            assertThat(raw).isEqualTo("ids=3&ids=4&ids=5"        // form, explode: one pair per element
                    + "&tags=a,b%20c"                               // form, explode false: comma-joined
                    + "&sp=x%20y"                                   // spaceDelimited
                    + "&pp=x%7Cy"                                   // pipeDelimited
                    + "&filter%5Brole%5D=admin&filter%5BfirstName%5D=Alex" // deepObject
                    + "&x=1&y=2"                                    // form object, explode: its members
                    + "&box=w,3,h,4"                                // form object, explode false
                    + "&where=" + percent("{\"a\":[1,\"b c\"]}")    // content: application/json
                    + "&text=plain");
            assertThat(queryValues(raw, "pp")).containsExactly("x|y");
            assertThat(queryValues(raw, "filter[firstName]")).containsExactly("Alex");
            assertThat(Json.parse(queryValues(raw, "where").get(0))).isEqualTo(Json.parse("{\"a\":[1,\"b c\"]}"));
        }

        @Test
        void queryValuesArePercentEncodedSoTheyCannotAddParameters() {
            Toolgate gate = gate(source().build());
            Map<String, String> expected = new java.util.LinkedHashMap<>();
            expected.put("two words", "two%20words");
            expected.put("caf\u00e9 \u6f22\u5b57 \uD83D\uDE00", "caf%C3%A9%20%E6%BC%A2%E5%AD%97%20%F0%9F%98%80");
            expected.put("a+b", "a%2Bb");
            expected.put("x&admin=true", "x%26admin%3Dtrue");
            expected.put("50%/#?;,", "50%25%2F%23%3F%3B%2C");
            expected.put("safe-._~", "safe-._~");
            for (Map.Entry<String, String> value : expected.entrySet()) {
                api.clear();
                Executed executed = read(gate, "read", Json.write(Json.object().set("path", Json.object().put("kind", "echo"))
                        .set("query", Json.object().put("q", value.getKey()))));
                ApiServer.Seen seen = api.apiRequests().get(0);
                assertThat(seen.rawQuery()).as(value.getKey()).isEqualTo("q=" + value.getValue());
                assertThat(queryValues(seen.rawQuery(), "q")).containsExactly(value.getKey());
                assertThat(executed.result().path("body").path("q").asString()).isEqualTo(value.getKey());
            }
        }

        @Test
        void pathParametersFollowSimpleLabelAndMatrixStyles() {
            Toolgate gate = gate(source().build());
            String person = "{\"role\": \"admin\", \"firstName\": \"Alex\"}";
            read(gate, "simplePath", "{\"path\": {\"list\": [3, 4, 5], \"obj\": " + person + ", \"objx\": " + person
                    + ", \"name\": \"a b\u00e9+\"}}");
            read(gate, "labelPath", "{\"path\": {\"one\": 5, \"list\": [3, 4, 5], \"listx\": [3, 4, 5], \"obj\": " + person
                    + ", \"objx\": " + person + "}}");
            read(gate, "matrixPath", "{\"path\": {\"one\": 5, \"list\": [3, 4, 5], \"listx\": [3, 4, 5], \"obj\": " + person
                    + ", \"objx\": " + person + ", \"where\": {\"k\": \"v w\"}}}");

            List<ApiServer.Seen> seen = api.apiRequests();
            assertThat(seen.get(0).rawPath()).isEqualTo("/v1/simple/3,4,5/role,admin,firstName,Alex/role=admin,firstName=Alex"
                    + "/a%20b%C3%A9%2B");
            assertThat(seen.get(1).rawPath()).isEqualTo("/v1/label/.5/.3,4,5/.3.4.5/.role,admin,firstName,Alex"
                    + "/.role=admin.firstName=Alex");
            assertThat(seen.get(2).rawPath()).isEqualTo("/v1/matrix/;one=5/;list=3,4,5/;listx=3;listx=4;listx=5"
                    + "/;obj=role,admin,firstName,Alex/;role=admin;firstName=Alex/" + percent("{\"k\":\"v w\"}"));
        }

        @Test
        void headerParametersAreSimpleStyleAndJsonContentIsSentAsJsonText() {
            Toolgate gate = gate(source().build());
            read(gate, "headers", "{\"header\": {\"X-Ids\": [3, 4, 5], \"X-Meta\": {\"role\": \"admin\", \"firstName\": \"Alex\"},"
                    + " \"X-Metax\": {\"role\": \"admin\", \"firstName\": \"Alex\"}, \"X-Where\": {\"a\": [1, \"b\"]}}}");
            ApiServer.Seen seen = api.apiRequests().get(0);
            assertThat(seen.header("X-Ids")).isEqualTo("3,4,5");
            assertThat(seen.headers().get("x-ids")).as("one header line, not one per element").hasSize(1);
            assertThat(seen.header("X-Meta")).isEqualTo("role,admin,firstName,Alex");
            assertThat(seen.header("X-Metax")).isEqualTo("role=admin,firstName=Alex");
            assertThat(Json.parse(seen.header("X-Where"))).isEqualTo(Json.parse("{\"a\":[1,\"b\"]}"));
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Responses {

        @Test
        void aJsonBodyIsParsed() {
            JsonNode result = read(gate(source().build()), "json").result();
            assertThat(result.path("status").asInt()).isEqualTo(200);
            assertThat(result.path("body").path("n").asInt()).isEqualTo(1);
            assertThat(result.path("body").path("list").size()).isEqualTo(2);
            assertThat(result.path("body").path("name").asString()).isEqualTo("caf\u00e9");
            assertThat(result.path("contentType").asString()).isEqualTo("application/json");
            assertThat(result.has("truncated")).isFalse();
        }

        @Test
        void aTextBodyIsAStringInItsCharset() {
            Toolgate gate = gate(source().build());
            JsonNode text = read(gate, "text").result();
            assertThat(text.path("body").isString()).isTrue();
            assertThat(text.path("body").asString()).isEqualTo("h\u00e9llo\nw\u00f6rld");
            JsonNode latin1 = read(gate, "latin1").result();
            assertThat(latin1.path("body").asString()).as("decoded by the charset it names").isEqualTo("caf\u00e9 cr\u00e8me");
        }

        @Test
        void anEmpty204HasOnlyItsStatus() {
            JsonNode result = read(gate(source().build()), "empty").result();
            assertThat(result.path("status").asInt()).isEqualTo(204);
            assertThat(result.has("body")).isFalse();
        }

        @Test
        void aBinaryBodyIsDescribedNotShown() {
            JsonNode result = read(gate(source().build()), "binary").result();
            assertThat(result.path("body").asString()).isEqualTo("(2048 bytes of image/png, not shown)");
            assertThat(result.path("contentType").asString()).isEqualTo("image/png");
        }

        @Test
        void aFiftyMegabyteBodyIsCutAtTheCapAndNotReadFurther() throws Exception {
            int cap = 8 * 1024;
            Toolgate gate = gate(source().maxResponseBytes(cap).build());
            Executed executed = read(gate, "big");
            JsonNode result = executed.result();
            assertThat(result.path("truncated").asBoolean()).isTrue();
            assertThat(result.path("body").asString()).hasSize(cap).matches("x+");
            assertThat(executed.truncated()).as("the source's cap, not the gate's").isFalse();
            // the client hung up: the server could not write the whole body (waits at most for the class guard)
            assertThat(bigEnded.get(30, TimeUnit.SECONDS)).isEqualTo("the client hung up");
            assertThat(bigSent.get()).isLessThan(BIG);
        }

        @Test
        void aBodyThatIsNotJsonDespiteItsTypeIsText() {
            JsonNode result = read(gate(source().build()), "notjson").result();
            assertThat(result.path("body").isString()).isTrue();
            assertThat(result.path("body").asString()).isEqualTo("<html>Bad gateway</html>");
        }

        @Test
        void anHttpErrorFailsWithItsStatusAndTheStartOfTheBody() {
            Toolgate gate = gate(source().build());
            ToolExecutionException missing = failure(() -> read(gate, "missing"));
            assertThat(missing.getMessage()).contains("HTTP 404").contains("no such thing").contains("GET /v1/r/missing");
            assertThat(gate.findCall(missing.callId()).orElseThrow().status()).isEqualTo(CallStatus.FAILED);
            ToolExecutionException down = failure(() -> read(gate, "down"));
            assertThat(down.getMessage()).contains("HTTP 503").contains("down for maintenance");
            assertThat(down).isNotInstanceOf(SourceUnavailableException.class);
        }

        @Test
        void aMegabyteErrorBodyIsCutInTheMessageAndTheAudit() {
            Toolgate gate = gate(source().build());
            ToolExecutionException error = failure(() -> read(gate, "hugeerror"));
            assertThat(error.getMessage()).contains("HTTP 500").contains("ERR-START").doesNotContain("ERR-END");
            assertThat(error.getMessage().length()).isLessThan(4096);
            String recorded = gate.findCall(error.callId()).orElseThrow().error();
            assertThat(recorded).contains("HTTP 500").doesNotContain("ERR-END");
            assertThat(recorded.length()).isLessThan(4096);
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Redirects {

        @Test
        void aReadFollowsASameOriginRedirectWithItsCredentials() {
            Toolgate gate = gate(source().bearerSecret("token").build());
            JsonNode moved = read(gate, "moved").result();
            assertThat(moved.path("status").asInt()).isEqualTo(200);
            assertThat(moved.path("body").path("q").asString()).isEqualTo("moved");
            JsonNode moved307 = read(gate, "moved307").result();
            assertThat(moved307.path("body").path("q").asString()).isEqualTo("moved307");

            assertThat(api.apiRequests()).extracting(ApiServer.Seen::rawPath)
                    .containsExactly("/v1/r/moved", "/v1/r/echo", "/v1/r/moved307", "/v1/r/echo");
            assertThat(api.apiRequests()).allSatisfy(s -> assertThat(s.header("Authorization")).isEqualTo("Bearer " + TOKEN));
        }

        @Test
        void aFollowedRedirectCarriesTheQueryKeyOnceEvenWhenTheLocationRepeatsIt() {
            Toolgate gate = gate(source().apiKeyQuery("api_key", "query-key").build());
            JsonNode result = read(gate, "read", "{\"path\":{\"kind\":\"keepsquery\"},\"query\":{\"q\":\"kept\"}}").result();
            assertThat(result.path("body").path("q").asString()).isEqualTo("kept");
            List<ApiServer.Seen> seen = api.apiRequests();
            assertThat(seen).hasSize(2);
            assertThat(queryValues(seen.get(1).rawQuery(), "api_key")).containsExactly(QUERY_KEY);
            assertThat(queryValues(seen.get(1).rawQuery(), "q")).containsExactly("kept");
        }

        @Test
        void fiveRedirectsAreFollowedAndASixthFailsClearly() {
            Toolgate gate = gate(source().bearerSecret("token").build());
            assertThat(read(gate, "hop-0-5").result().path("body").path("hops").asInt()).isEqualTo(5);
            assertThat(api.apiRequests()).hasSize(6);

            api.clear();
            ToolExecutionException error = failure(() -> read(gate, "hop-0-6"));
            assertThat(error.getMessage()).contains("redirected more than 5 times").contains("/v1/r/hop-0-6");
            assertThat(api.apiRequests()).as("the sixth redirect is not followed").hasSize(6);
        }

        @Test
        void aRedirectToAnotherOriginIsNotFollowedAndNothingGoesThere() {
            Toolgate gate = gate(source().bearerSecret("token").apiKeyHeader("X-API-Key", "header-key")
                    .apiKeyQuery("api_key", "query-key").build());
            ToolExecutionException error = failure(() -> read(gate, "away"));
            assertThat(error.getMessage()).contains("/v1/r/away").contains("not followed");
            assertNoSecret("the message", error.getMessage());

            // a write's redirect to another origin is returned, not followed
            Applied applied = write(gate, "away", "{\"n\":1}");
            assertThat(applied.result().path("status").asInt()).isEqualTo(307);
            assertThat(applied.result().path("location").asString()).isEqualTo(other.url("/v1/w/echo").toString());

            assertThat(other.requests()).as("the other origin received nothing").isEmpty();
            assertThat(api.apiRequests()).hasSize(2);
        }

        @Test
        void aPostAnsweredWithSeeOtherReturnsTheLocationWithoutFollowingIt() {
            Toolgate gate = gate(source().bearerSecret("token").build());
            Applied applied = write(gate, "seeother", "{\"name\":\"new\"}");
            assertThat(applied.result().path("status").asInt()).isEqualTo(303);
            assertThat(applied.result().path("location").asString()).isEqualTo(api.url("/v1/r/echo?q=created").toString());
            assertThat(api.apiRequests()).singleElement().satisfies(s -> {
                assertThat(s.method()).isEqualTo("POST");
                assertThat(s.rawPath()).isEqualTo("/v1/w/seeother");
            });
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Timeouts {

        @Test
        void aReadThatGetsNoAnswerFailsWithinTheCallTimeout() {
            Toolgate gate = gate(source().build(), Duration.ofSeconds(1));
            ToolExecutionException error = failure(() -> read(gate, "stall"));
            assertThat(error).isNotInstanceOf(SourceUnavailableException.class);
            assertThat(error.getMessage()).contains("GET /v1/r/stall").contains("no answer within");
            assertThat(gate.findCall(error.callId()).orElseThrow().status()).isEqualTo(CallStatus.FAILED);
        }

        @Test
        void aWriteThatGetsNoAnswerSaysItMayOrMayNotHaveTakenEffect() {
            Toolgate gate = gate(source().build(), Duration.ofSeconds(1));
            Proposal proposal = propose(gate, "stall", "{\"n\":1}");
            ToolExecutionException error = failure(() -> gate.apply(ctx(), proposal.token()));
            assertThat(error.getMessage()).contains("POST /v1/w/stall").contains("may or may not have taken effect");
            CallRecord record = gate.findCall(proposal.callId()).orElseThrow();
            assertThat(record.status()).isEqualTo(CallStatus.FAILED);
            assertThat(record.error()).contains("may or may not have taken effect");
            assertThat(api.apiRequests()).hasSize(1);
        }

        @Test
        void aBodyTrickledPastTheDeadlineIsCutAtTheDeadline() {
            Toolgate gate = gate(source().build(), Duration.ofSeconds(1));
            ToolExecutionException error = failure(() -> read(gate, "trickle"));
            assertThat(error.getMessage()).contains("GET /v1/r/trickle").contains("no answer within");
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class Concurrency {

        @Test
        @Timeout(value = 120, unit = TimeUnit.SECONDS)
        void eightThreadsOfFiftyReadsAllSucceedEachWithItsCredential() throws Exception {
            Toolgate gate = gate(source().bearerSecret("token").apiKeyQuery("api_key", "query-key").build());
            ExecutorService pool = Executors.newFixedThreadPool(8);
            closing.add(pool::shutdownNow);
            CountDownLatch start = new CountDownLatch(1);
            List<String> mismatches = new CopyOnWriteArrayList<>();
            List<Future<Integer>> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                threads.add(pool.submit(() -> {
                    start.await();
                    int ok = 0;
                    for (int i = 0; i < 50; i++) {
                        String q = "t" + thread + "-" + i;
                        Executed executed = read(gate, "read", "{\"path\":{\"kind\":\"echo\"},\"query\":{\"q\":\"" + q + "\"}}");
                        if (executed.result().path("status").asInt() == 200
                                && q.equals(executed.result().path("body").path("q").asString())) {
                            ok++;
                        } else {
                            mismatches.add(q + " -> " + executed.result());
                        }
                    }
                    return ok;
                }));
            }
            start.countDown();
            int succeeded = 0;
            for (Future<Integer> thread : threads) {
                succeeded += thread.get();
            }
            assertThat(mismatches).isEmpty();
            assertThat(succeeded).isEqualTo(400);

            List<ApiServer.Seen> seen = api.apiRequests();
            assertThat(seen).hasSize(400);
            assertThat(seen).allSatisfy(s -> {
                assertThat(s.header("Authorization")).isEqualTo("Bearer " + TOKEN);
                assertThat(queryValues(s.rawQuery(), "api_key")).containsExactly(QUERY_KEY);
            });
            assertThat(seen.stream().map(s -> queryValues(s.rawQuery(), "q").get(0)).distinct().count())
                    .as("each call sent once").isEqualTo(400);
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Nested
    class DocumentByUrl {

        @Test
        void aRedirectedOrFailingDocumentMakesTheSourceUnavailableUntilItComesBack() {
            byte[] document = DOCUMENT.getBytes(StandardCharsets.UTF_8);
            other.document("/openapi.yaml", document, "application/yaml");
            AtomicReference<ApiServer.Answer> answer = new AtomicReference<>(
                    ApiServer.Answer.redirect(302, other.url("/openapi.yaml").toString()));
            api.on("GET", "/openapi\\.yaml", s -> answer.get());
            Toolgate gate = gate(OpenApiSource.builder("api").documentUrl(api.url("/openapi.yaml")).server(api.url("/v1"))
                    .requires("api.use").build());

            SourceStatus redirected = gate.listSources().get(0);
            assertThat(redirected.state()).isEqualTo(SourceStatus.State.UNAVAILABLE);
            assertThat(redirected.error()).contains("302").contains(api.url("/openapi.yaml").toString());
            assertThat(other.requests()).as("the redirect is not followed").isEmpty();
            assertThatThrownBy(() -> read(gate, "json")).isInstanceOf(SourceUnavailableException.class);

            answer.set(ApiServer.Answer.text(500, "text/plain", "maintenance"));
            SourceStatus failing = gate.refreshSources().get(0);
            assertThat(failing.state()).isEqualTo(SourceStatus.State.UNAVAILABLE);
            assertThat(failing.error()).contains("500");

            answer.set(new ApiServer.Answer(200, "application/yaml", document, Map.of()));
            SourceStatus back = gate.refreshSources().get(0);
            assertThat(back.state()).isEqualTo(SourceStatus.State.AVAILABLE);
            assertThat(back.tools()).isEqualTo(7);
            assertThat(read(gate, "json").result().path("body").path("n").asInt()).isEqualTo(1);
            assertThat(other.requests()).isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------

    /** A server that reads a request's head and closes the connection without answering. */
    static final class Dropper implements AutoCloseable {

        private final ServerSocket socket;
        private final List<String> requestLines = new CopyOnWriteArrayList<>();
        private final Thread thread;

        Dropper() throws IOException {
            socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            thread = new Thread(this::serve, "dropper");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve() {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    InputStream in = connection.getInputStream();
                    StringBuilder line = new StringBuilder();
                    int c;
                    while ((c = in.read()) != -1 && c != '\n') {
                        line.append((char) c);
                    }
                    requestLines.add(line.toString().strip());
                } catch (IOException e) {
                    // closed
                }
            }
        }

        URI url(String path) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
        }

        List<String> requestLines() {
            return List.copyOf(requestLines);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
