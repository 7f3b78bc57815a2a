package dev.toolgate.notice;

import static dev.toolgate.notice.Fixture.args;
import static dev.toolgate.notice.Fixture.boss;
import static dev.toolgate.notice.Fixture.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Approval;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The webhook notifier against a real local HTTP server. */
class WebhookNotifierTest {

    private static final String SECRET = "whsec-test-0f9e8d7c6b5a";
    private static final String LINK = "https://ops.example.com/console/#inbox?call={callId}&run={executionId}";

    /** One request as the server saw it. */
    record Received(String timestamp, String signature, String event, String delivery, String contentType, String body) {
    }

    private HttpServer server;
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int status = 200;
    private volatile CountDownLatch hold;
    private final CountDownLatch held = new CountDownLatch(1);

    private String start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/hook", this::handle);
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestHeaders().getFirst("X-Toolgate-Timestamp"),
                exchange.getRequestHeaders().getFirst("X-Toolgate-Signature"),
                exchange.getRequestHeaders().getFirst("X-Toolgate-Event"),
                exchange.getRequestHeaders().getFirst("X-Toolgate-Delivery"),
                exchange.getRequestHeaders().getFirst("Content-Type"), body));
        CountDownLatch gate = hold;
        if (gate != null) {
            held.countDown();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    @AfterEach
    void stop() {
        if (hold != null) {
            hold.countDown();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private Received next() throws InterruptedException {
        Received r = received.poll(10, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError("no request arrived within 10 seconds");
        }
        return r;
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 seconds");
            }
            Thread.sleep(10);
        }
    }

    @Test
    void eachNoticeIsPostedSignedAndVerifiable() throws Exception {
        String url = start();
        WebhookNotifier webhook = WebhookNotifier.builder(url, SECRET).linkTemplate(LINK).build();
        Fixture fixture = new Fixture();
        try (Toolgate gate = fixture.builder().notifier(webhook).build()) {
            Proposal proposal = (Proposal) gate.call(user(), "t.touch", args(Fixture.ARGUMENT));
            Received r = next();
            assertThat(r.contentType()).startsWith("application/json");
            assertThat(r.event()).isEqualTo("awaiting_decision");
            assertThat(r.delivery()).isNotBlank();
            assertThat(r.signature()).startsWith("sha256=").hasSize("sha256=".length() + 64);
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body(), r.signature())).isTrue();
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body(), r.signature(), Duration.ofMinutes(5),
                    Instant.now())).isTrue();
            assertThat(r.signature()).isEqualTo(WebhookNotifier.signature(SECRET, r.timestamp(), r.body()));
            // anything changed does not verify
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body().replace("t.touch", "t.other"), r.signature()))
                    .isFalse();
            assertThat(WebhookNotifier.verify(SECRET, Long.toString(Long.parseLong(r.timestamp()) + 1), r.body(),
                    r.signature())).isFalse();
            assertThat(WebhookNotifier.verify("another-secret", r.timestamp(), r.body(), r.signature())).isFalse();
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body(), null)).isFalse();
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body(), "sha256=00")).isFalse();
            assertThat(WebhookNotifier.verify(SECRET, r.timestamp(), r.body(), r.signature(), Duration.ofMinutes(5),
                    Instant.now().plus(Duration.ofHours(1)))).isFalse();

            JsonNode body = Json.parse(r.body());
            assertThat(body.path("event").asText()).isEqualTo("awaiting_decision");
            assertThat(body.path("callId").asText()).isEqualTo(proposal.callId());
            assertThat(body.path("tool").asText()).isEqualTo("t.touch");
            assertThat(body.path("effect").asText()).isEqualTo("mutate");
            assertThat(body.path("summary").asText()).isEqualTo(Fixture.SUMMARY);
            assertThat(body.path("proposer").path("kind").asText()).isEqualTo("user");
            assertThat(body.path("proposer").path("id").asText()).isEqualTo("alice");
            assertThat(body.path("tenant").asText()).isEqualTo("acme");
            assertThat(body.path("expiresAt").asText()).isEqualTo(proposal.expiresAt().toString());
            assertThat(body.path("link").asText())
                    .isEqualTo("https://ops.example.com/console/#inbox?call=" + proposal.callId() + "&run=");
            assertThat(body.has("decidedBy")).isFalse();

            gate.approve(boss(), proposal.callId(), Approval.once());
            Received applied = next();
            assertThat(applied.event()).isEqualTo("applied");
            assertThat(Json.parse(applied.body()).path("decidedBy").path("id").asText()).isEqualTo("boss");
            assertThat(WebhookNotifier.verify(SECRET, applied.timestamp(), applied.body(), applied.signature())).isTrue();
            waitFor(() -> webhook.stats().delivered() == 2);
            assertThat(webhook.stats()).isEqualTo(new WebhookNotifier.Stats(2, 0, 0));
        }
    }

    @Test
    void aServerAnswering500GetsExactlyMaxAttemptsThenTheNoticeIsCountedFailed() throws Exception {
        String url = start();
        status = 500;
        WebhookNotifier webhook = WebhookNotifier.builder(url, SECRET).maxAttempts(3).backoff(Duration.ofMillis(20)).build();
        Fixture fixture = new Fixture();
        try (Toolgate gate = fixture.builder().notifier(webhook).build()) {
            gate.call(user(), "t.touch", args("x"));
            waitFor(() -> webhook.stats().failed() == 1);
            assertThat(requests.get()).isEqualTo(3);
            List<Received> attempts = List.of(next(), next(), next());
            assertThat(attempts).extracting(Received::delivery).containsOnly(attempts.get(0).delivery());
            assertThat(attempts).allSatisfy(a -> assertThat(WebhookNotifier.verify(SECRET, a.timestamp(), a.body(),
                    a.signature())).isTrue());
            assertThat(webhook.stats()).isEqualTo(new WebhookNotifier.Stats(0, 1, 0));

            // a receiver that refuses (4xx) is not asked again; one that recovers gets the next notice
            status = 400;
            gate.call(user(), "t.touch", args("y"));
            waitFor(() -> webhook.stats().failed() == 2);
            assertThat(requests.get()).isEqualTo(4);
            status = 204;
            gate.call(user(), "t.touch", args("z"));
            waitFor(() -> webhook.stats().delivered() == 1);
            assertThat(requests.get()).isEqualTo(5);
        }
    }

    @Test
    void aHangingServerDoesNotHoldTheGovernedCall() throws Exception {
        String url = start();
        hold = new CountDownLatch(1);
        WebhookNotifier webhook = WebhookNotifier.builder(url, SECRET).timeout(Duration.ofSeconds(20)).maxAttempts(1).build();
        Fixture fixture = new Fixture();
        try (Toolgate gate = fixture.builder().notifier(webhook).build()) {
            gate.call(user(), "t.touch", args("first"));
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue(); // the server now holds the first notice's request
            Proposal second = (Proposal) gate.call(user(), "t.touch", args("second"));
            InboxResult decided = gate.approve(boss(), second.callId(), Approval.once());
            assertThat(decided).isInstanceOf(InboxResult.Approved.class);
            // both calls returned while the server still holds the request
            assertThat(hold.getCount()).isEqualTo(1);
            assertThat(requests.get()).isEqualTo(1);
            hold.countDown();
            waitFor(() -> webhook.stats().delivered() == 3);
        }
    }

    @Test
    void a500ServerInItsBackoffDoesNotHoldTheGovernedCall() throws Exception {
        String url = start();
        status = 500;
        WebhookNotifier webhook = WebhookNotifier.builder(url, SECRET).backoff(Duration.ofSeconds(30)).build();
        Fixture fixture = new Fixture();
        try (Toolgate gate = fixture.builder().notifier(webhook).build()) {
            gate.call(user(), "t.touch", args("first"));
            next(); // the first attempt was answered 500; the notifier now waits 30 seconds before the next
            Proposal second = (Proposal) gate.call(user(), "t.touch", args("second"));
            assertThat(gate.approve(boss(), second.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
            assertThat(requests.get()).isEqualTo(1);
            assertThat(webhook.stats()).isEqualTo(new WebhookNotifier.Stats(0, 0, 0));
        }
    }

    @Test
    void noBodyCarriesTheTokenThePayloadOrAnArgument() throws Exception {
        String url = start();
        WebhookNotifier json = WebhookNotifier.builder(url, SECRET).linkTemplate(LINK).build();
        WebhookNotifier slack = WebhookNotifier.builder(url, SECRET).linkTemplate(LINK).slack(true).build();
        Fixture fixture = new Fixture();
        List<String> forbidden = new ArrayList<>(List.of(Fixture.ARGUMENT, Fixture.EDITED_ARGUMENT));
        int expected = 0;
        try (Toolgate gate = fixture.builder().notifier(json).notifier(slack).build()) {
            Proposal approved = (Proposal) gate.call(user(), "t.touch", args(Fixture.ARGUMENT));
            forbidden.add(approved.token());
            forbidden.add(approved.token().substring(approved.token().lastIndexOf('.') + 1));
            forbidden.add(Json.write(approved.payload()));
            gate.approve(boss(), approved.callId(), Approval.once());
            Proposal rejected = (Proposal) gate.call(user(), "t.touch", args(Fixture.ARGUMENT));
            forbidden.add(rejected.token());
            gate.reject(boss(), rejected.callId(), "no");
            Proposal edited = (Proposal) gate.call(user(), "t.touch", args(Fixture.ARGUMENT));
            forbidden.add(edited.token());
            InboxResult.Edited replaced = (InboxResult.Edited) gate.edit(boss(), edited.callId(), args(Fixture.EDITED_ARGUMENT));
            forbidden.add(((Proposal) replaced.replacement()).token());
            ExecutionOutcome paused = gate.executions().start(user(), "t.flow", (String) null);
            assertThat(paused).isInstanceOf(ExecutionOutcome.Paused.class);
            expected = 2 * (2 + 2 + 3 + 1);
            waitFor(() -> json.stats().delivered() + slack.stats().delivered() == 8 * 2);
            fixture.clock.advance(Duration.ofDays(2)); // the replacement and the run's step expire
            gate.sweep();
            expected += 2 * 2;
            int total = expected;
            waitFor(() -> json.stats().delivered() + slack.stats().delivered() == total);
        }
        List<Received> all = new ArrayList<>(received);
        assertThat(all).hasSize(expected);
        assertThat(all).extracting(Received::event).contains("awaiting_decision", "applied", "rejected", "superseded",
                "expired");
        for (Received r : all) {
            for (String value : forbidden) {
                assertThat(r.body()).doesNotContain(value);
            }
            assertThat(r.body()).doesNotContain("note").doesNotContain("token").doesNotContain("payload");
        }
        List<Received> slackBodies = all.stream().filter(r -> Json.parse(r.body()).has("text")).toList();
        assertThat(slackBodies).hasSize(expected / 2);
        assertThat(slackBodies).allSatisfy(r -> assertThat(Json.parse(r.body()).size()).isEqualTo(1));
        assertThat(slackBodies).anySatisfy(r -> assertThat(Json.parse(r.body()).path("text").asText())
                .startsWith("Approval needed: t.touch (mutate) - Touch the target. Proposed by user:alice in acme; expires ")
                .contains("|Open in the console>"));
        assertThat(slackBodies).anySatisfy(r -> assertThat(Json.parse(r.body()).path("text").asText())
                .startsWith("Approval needed: step 2 of run "));
    }

    @Test
    void onlyHttpUrlsAndABlankSecretIsRefused() {
        for (String bad : List.of("ftp://example.com/hook", "file:///etc/passwd", "javascript:alert(1)", "/relative/hook",
                "mailto:ops@example.com", "http:///nohost")) {
            assertThatThrownBy(() -> WebhookNotifier.builder(bad, SECRET)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageNotContaining(SECRET);
        }
        assertThatThrownBy(() -> WebhookNotifier.builder("https://hooks.example.com/x", " "))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WebhookNotifier.builder("https://hooks.example.com/x", SECRET).linkTemplate("ftp://x/{callId}"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WebhookNotifier.builder("https://hooks.example.com/x", SECRET).maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WebhookNotifier.builder("https://hooks.example.com/x", SECRET).maxAttempts(11))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WebhookNotifier.builder("https://hooks.example.com/x", SECRET).timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        // neither the secret nor the URL's path (a chat webhook's path is a credential) shows in its description
        WebhookNotifier notifier = WebhookNotifier.builder("https://hooks.example.com/services/T0/B0/sekrit", SECRET).build();
        assertThat(notifier.toString()).isEqualTo("WebhookNotifier[https://hooks.example.com]")
                .doesNotContain(SECRET).doesNotContain("sekrit");
        assertThat(WebhookNotifier.builder("https://ops:pa55word@hooks.example.com:8443/x", SECRET).build().toString())
                .isEqualTo("WebhookNotifier[https://hooks.example.com:8443]");
    }

    @Test
    void backoffDoublesAndIsCapped() {
        WebhookNotifier notifier = WebhookNotifier.builder("https://hooks.example.com/x", SECRET)
                .backoff(Duration.ofSeconds(1)).maxAttempts(10).build();
        assertThat(notifier.backoffBefore(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(notifier.backoffBefore(3)).isEqualTo(Duration.ofSeconds(2));
        assertThat(notifier.backoffBefore(4)).isEqualTo(Duration.ofSeconds(4));
        assertThat(notifier.backoffBefore(10)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void linkPlaceholdersAreEncoded() {
        WebhookNotifier notifier = WebhookNotifier.builder("https://hooks.example.com/x", SECRET)
                .linkTemplate("https://ops.example.com/c/#inbox?call={callId}&tool={tool}&t={tenant}&run={executionId}&step={step}")
                .build();
        ApprovalNotice notice = new ApprovalNotice(NoticeKind.AWAITING_DECISION, "id 1&x", "t.touch", Effect.MUTATE, null,
                new PrincipalRef(dev.toolgate.access.PrincipalKind.USER, "alice"), "a b", null, null, "run-1", 3, null,
                null, Instant.now());
        assertThat(notifier.link(notice))
                .isEqualTo("https://ops.example.com/c/#inbox?call=id%201%26x&tool=t.touch&t=a%20b&run=run-1&step=3");
    }
}
