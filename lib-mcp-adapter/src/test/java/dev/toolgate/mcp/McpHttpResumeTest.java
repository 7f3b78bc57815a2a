package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resumable SSE streams over real HTTP: a dropped GET stream resumed with {@code Last-Event-ID}
 * delivers exactly the missed events, in order, once; the replay buffer's bounds evict the oldest and
 * an evicted id gets 410; hostile ids fail closed (400, nothing changes); SSE polling closes a POST's
 * stream early and the response arrives on the resumed GET. (The Java SDK 2.1.0 client resumes only a
 * stream that failed after a message, not one the server ended after its priming event, so it cannot
 * use polling; the TypeScript SDK's client can.)
 */
// a separate thread: JDK 17's HttpClient response stream swallows a same-thread timeout's interrupt,
// so a stream that never delivers would hang the build instead of failing the test
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class McpHttpResumeTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Toolgate gate;
    private ToolgateMcpServer server;
    private URI endpoint;

    private void start(UnaryOperator<McpHttpBuilder> customize) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        gate.registry().register(ToolProvider.of("slow", Tool.builder("nap", NoInput.class).description("Sleeps a second.")
                .effect(Effect.READ).execute((in, ctx) -> {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "rested";
                }).build(), Tool.builder("long", NoInput.class).description("Sleeps 5 seconds.")
                .effect(Effect.READ).execute((in, ctx) -> {
                    try {
                        Thread.sleep(5000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "late";
                }).build()));
        server = customize.apply(ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))).start();
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

    /** One SSE event as read from the wire. */
    record Event(String id, String data, String retry) {
    }

    /** An open SSE response read line by line. */
    static final class Sse implements AutoCloseable {
        final HttpResponse<InputStream> response;
        final BufferedReader reader;

        Sse(HttpResponse<InputStream> response) {
            this.response = response;
            this.reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
        }

        /** The next event, or null at the end of the stream. */
        Event next() throws Exception {
            String id = null;
            String retry = null;
            StringBuilder data = null;
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (id != null || data != null) {
                        return new Event(id, data == null ? null : data.toString(), retry);
                    }
                    continue; // after a comment
                }
                if (line.startsWith("id:")) {
                    id = line.substring(3).strip();
                } else if (line.startsWith("retry:")) {
                    retry = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    data = (data == null ? new StringBuilder() : data.append('\n')).append(line.substring(5).strip());
                }
            }
            return null;
        }

        @Override
        public void close() throws Exception {
            response.body().close();
        }
    }

    private String initialize(String token) throws Exception {
        HttpResponse<String> response = http.send(post(INIT, token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        String session = response.headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<String> initialized = http.send(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", token)
                .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(initialized.statusCode()).isEqualTo(202);
        return session;
    }

    private HttpRequest.Builder post(String body, String token) {
        return HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private HttpRequest.Builder get(String session, String token, String lastEventId) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint).header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + token).header("Mcp-Session-Id", session).GET();
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId);
        }
        return builder;
    }

    private Sse open(String session, String token, String lastEventId) throws Exception {
        HttpResponse<InputStream> response = http.send(get(session, token, lastEventId).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).as("GET with Last-Event-ID %s", lastEventId).isEqualTo(200);
        return new Sse(response);
    }

    private HttpResponse<String> refused(String session, String token, String lastEventId) throws Exception {
        return http.send(get(session, token, lastEventId).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends one notifications/tools/list_changed to every session; recorded when this returns. */
    private void notifyAll(int times) {
        for (int i = 0; i < times; i++) {
            server.sdkServer().notifyToolsListChanged().block(Duration.ofSeconds(10));
        }
    }

    private static long seq(String id) {
        return Long.parseLong(id.substring(id.lastIndexOf('-') + 1));
    }

    private static String withSeq(String id, long seq) {
        return id.substring(0, id.lastIndexOf('-') + 1) + seq;
    }

    // ------------------------------------------------------------------------------------ GET stream

    @Test
    void aDroppedStreamResumesWithExactlyTheMissedEventsInOrderOnce() throws Exception {
        start(b -> b);
        String session = initialize("carol-token");
        String seen;
        try (Sse first = open(session, "carol-token", null)) {
            Event priming = first.next();
            assertThat(priming.id()).as("the priming event has an id").isNotBlank();
            assertThat(priming.data()).as("and empty data").isEmpty();
            assertThat(priming.retry()).isEqualTo("1000");
            notifyAll(1);
            Event live = first.next();
            assertThat(Json.parse(live.data()).path("method").asString()).isEqualTo("notifications/tools/list_changed");
            assertThat(seq(live.id())).isGreaterThan(seq(priming.id()));
            seen = live.id();
        }
        notifyAll(3); // while the client is away

        try (Sse resumed = open(session, "carol-token", seen)) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Event event = resumed.next();
                assertThat(Json.parse(event.data()).path("method").asString()).isEqualTo("notifications/tools/list_changed");
                ids.add(event.id());
            }
            assertThat(ids).as("the three missed events, in order").containsExactly(
                    withSeq(seen, seq(seen) + 1), withSeq(seen, seq(seen) + 2), withSeq(seen, seq(seen) + 3));
            notifyAll(1);
            Event next = resumed.next();
            assertThat(next.id()).as("then live, with no event repeated").isEqualTo(withSeq(seen, seq(seen) + 4));
        }
    }

    @Test
    void theBufferKeepsTheNewestEventsAndAnEvictedIdGets410() throws Exception {
        start(b -> b.replayBuffer(3, 1024 * 1024));
        String session = initialize("carol-token");
        String priming;
        try (Sse first = open(session, "carol-token", null)) {
            priming = first.next().id();
        }
        notifyAll(5); // seq +1..+5; +1 and +2 evicted

        HttpResponse<String> gone = refused(session, "carol-token", priming);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(Json.parse(gone.body()).path("error").path("code").asInt()).isEqualTo(HttpResponses.EVENTS_GONE);
        assertThat(refused(session, "carol-token", withSeq(priming, seq(priming) + 1)).statusCode())
                .as("+2 was evicted, so resuming after +1 cannot be complete").isEqualTo(410);

        try (Sse resumed = open(session, "carol-token", withSeq(priming, seq(priming) + 2))) {
            for (int i = 3; i <= 5; i++) {
                assertThat(resumed.next().id()).isEqualTo(withSeq(priming, seq(priming) + i));
            }
        }
    }

    @Test
    void hostileLastEventIdsFailClosedAndChangeNothing() throws Exception {
        start(b -> b);
        String carol = initialize("carol-token");
        String other = initialize("carol-token");
        String othersId;
        try (Sse others = open(other, "carol-token", null)) {
            othersId = others.next().id();
        }
        try (Sse listening = open(carol, "carol-token", null)) {
            String mine = listening.next().id();
            long now = seq(mine);
            int streams = server.openStreams();
            List<String> corpus = List.of(
                    othersId,                                        // another session's (same principal)
                    withSeq(othersId, now),                          // another session's tag with this seq
                    "x".repeat(10_000),                              // huge
                    mine + "0".repeat(5_000),                        // huge, well-formed start
                    withSeq(mine, -1).replace("--", "-") + "-1",     // extra part
                    mine.substring(0, mine.lastIndexOf('-')) + "--1", // negative
                    withSeq(mine, now + 1000),                       // not issued yet
                    withSeq(mine, 0).replace("-0-0", "-99-0"),       // a stream never opened
                    mine.substring(0, mine.lastIndexOf('-') + 1) + "99999999999999999999999", // overflow
                    "abc", "", " ", "0", "-1", "null", "../../etc/passwd",
                    mine.toUpperCase(),                              // the tag is lower-case hex
                    mine + "\tx");
            for (String hostile : corpus) {
                HttpResponse<String> answer = refused(carol, "carol-token", hostile);
                assertThat(answer.statusCode()).as("Last-Event-ID '%s'", hostile.length() > 80 ? hostile.substring(0, 80) : hostile)
                        .isEqualTo(400);
                assertThat(answer.body()).doesNotContain("list_changed");
            }
            // another principal on the same session id, with a real id: 404 as for any request of theirs
            assertThat(refused(carol, "bob-token", mine).statusCode()).isEqualTo(404);
            // CR/LF injection: the raw request splits into headers; the id is refused and no header is injected
            String raw = rawGet(carol, "carol-token", mine.substring(0, 10) + "\r\nMcp-Session-Id: " + other);
            assertThat(raw).startsWith("HTTP/1.1 4").doesNotContain("list_changed");

            assertThat(server.openStreams()).as("no stream opened or closed").isEqualTo(streams);
            notifyAll(1);
            Event live = listening.next();
            assertThat(seq(live.id())).as("and still delivers, next in line").isEqualTo(now + 1);
        }
    }

    private String rawGet(String session, String token, String lastEventId) throws Exception {
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + endpoint.getPort() + "\r\nAccept: text/event-stream\r\n"
                    + "Authorization: Bearer " + token + "\r\nMcp-Session-Id: " + session + "\r\nLast-Event-ID: " + lastEventId
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            byte[] head = socket.getInputStream().readNBytes(2048);
            return new String(head, StandardCharsets.ISO_8859_1);
        }
    }

    // ------------------------------------------------------------------------------------ POST streams, polling

    @Test
    void pollingClosesThePostStreamEarlyAndTheResponseComesOnTheResumedGet() throws Exception {
        start(b -> b.ssePolling(Duration.ofMillis(200), Duration.ofMillis(500)));
        String session = initialize("carol-token");
        HttpResponse<InputStream> response = http.send(post(
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow.nap\",\"arguments\":{}}}",
                "carol-token").header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
        String priming;
        try (Sse post = new Sse(response)) {
            Event first = post.next();
            assertThat(first.data()).isEmpty();
            assertThat(first.retry()).isEqualTo("500");
            priming = first.id();
            assertThat(post.next()).as("the server closed the stream before the response").isNull();
        }
        try (Sse resumed = open(session, "carol-token", priming)) {
            Event answer = resumed.next();
            assertThat(Json.parse(answer.data()).path("id").asInt()).isEqualTo(7);
            assertThat(Json.parse(answer.data()).path("result").path("structuredContent").path("result").asString()).isEqualTo("rested");
            assertThat(resumed.next()).as("the resumed stream ends after the response").isNull();
        }
        // the same id again: the stream is complete; its response is replayed once more, then the end
        try (Sse again = open(session, "carol-token", priming)) {
            assertThat(Json.parse(again.next().data()).path("id").asInt()).isEqualTo(7);
            assertThat(again.next()).isNull();
        }
        assertThat(server.openStreams()).isZero();
    }

    @Test
    void endingTheSessionClosesAResumedStreamWhoseCallIsStillRunning() throws Exception {
        start(b -> b.ssePolling(Duration.ofMillis(100), Duration.ofMillis(500)));
        String session = initialize("carol-token");
        HttpResponse<InputStream> response = http.send(post(
                "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"slow.long\",\"arguments\":{}}}",
                "carol-token").header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofInputStream());
        String priming;
        try (Sse post = new Sse(response)) {
            priming = post.next().id();
        }
        try (Sse resumed = open(session, "carol-token", priming)) {
            HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(endpoint).header("Authorization", "Bearer carol-token")
                    .header("Mcp-Session-Id", session).DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(deleted.statusCode()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(resumed.next()).as("closed with the session, not answered").isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("long before the call's 5 s").isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void quickAnswersStayPlainJsonWithPollingOn() throws Exception {
        start(b -> b.ssePolling(Duration.ofSeconds(5), Duration.ofMillis(500)));
        String session = initialize("carol-token");
        HttpResponse<String> list = http.send(post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", "carol-token")
                .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(list.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(Json.parse(list.body()).path("result").path("tools").size()).isGreaterThan(0);
    }
}
