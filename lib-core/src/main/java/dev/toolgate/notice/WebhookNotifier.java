package dev.toolgate.notice;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Posts each approval notice to a URL as a small JSON document, signed with HMAC-SHA256.
 *
 * <p>The body names the event, the call id, the tool, its effect, the redacted summary, the proposer
 * ({@code kind} and {@code id}), the tenant, session, expiry, execution and step where there are any,
 * who decided, and a link built from the host's template; never the proposal's token, its payload or
 * the call's arguments. With {@link Builder#slack(boolean) slack(true)} the body is
 * {@code {"text": "..."}} instead, which Slack's (and compatible) incoming webhooks accept.
 *
 * <p>Every request carries {@code X-Toolgate-Timestamp} (epoch seconds), {@code X-Toolgate-Event},
 * {@code X-Toolgate-Delivery} (one id for all attempts of one notice) and
 * {@code X-Toolgate-Signature: sha256=<hex>}, the HMAC-SHA256 with the shared secret over
 * {@code timestamp + "." + body}. Receivers check it with {@link #verify(String, String, String, String)}.
 *
 * <p>A delivery is attempted at most {@link Builder#maxAttempts(int) maxAttempts} times (default 3):
 * a connection error, a timeout, {@code 408}, {@code 429} and {@code 5xx} are retried after an
 * exponential backoff; any other answer but {@code 2xx} fails at once. A delivery that keeps failing is
 * logged at WARN and counted in {@link #stats()}; it is never retried forever. Neither the secret nor
 * the URL's path and query (which for chat webhooks is itself a credential) is ever logged.
 *
 * <p>Register it with {@code Toolgate.builder().notifier(...)}: the gate calls it off the call path,
 * so a slow or failing endpoint never delays or fails a governed call. Thread-safe.
 */
public final class WebhookNotifier implements ApprovalNotifier {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookNotifier.class);
    private static final String HMAC = "HmacSHA256";
    private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

    private final URI url;
    private final String where;
    private final byte[] secret;
    private final String linkTemplate;
    private final Duration timeout;
    private final int maxAttempts;
    private final Duration backoff;
    private final boolean slack;
    private final HttpClient client;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    private WebhookNotifier(Builder builder) {
        this.url = builder.url;
        // scheme, host and port only: the user info, path and query may hold credentials
        this.where = builder.url.getScheme() + "://" + builder.url.getHost()
                + (builder.url.getPort() == -1 ? "" : ":" + builder.url.getPort());
        this.secret = builder.secret.getBytes(StandardCharsets.UTF_8);
        this.linkTemplate = builder.linkTemplate;
        this.timeout = builder.timeout;
        this.maxAttempts = builder.maxAttempts;
        this.backoff = builder.backoff;
        this.slack = builder.slack;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * A builder for a notifier posting to {@code url} (http or https), signing with {@code secret}.
     *
     * @throws IllegalArgumentException the URL is not an absolute http(s) URL with a host, or the secret is blank
     */
    public static Builder builder(String url, String secret) {
        return new Builder(url, secret);
    }

    /** How many notices this notifier delivered, gave up on, and had dropped by the gate's full queue. */
    public Stats stats() {
        return new Stats(delivered.get(), failed.get(), dropped.get());
    }

    /**
     * Delivery counts.
     *
     * @param delivered notices a receiver accepted ({@code 2xx})
     * @param failed    notices given up on after the last attempt (or a non-retryable answer)
     * @param dropped   notices the gate dropped because this notifier's queue was full
     */
    public record Stats(long delivered, long failed, long dropped) {
    }

    @Override
    public void onNotice(ApprovalNotice notice) throws InterruptedException {
        Objects.requireNonNull(notice, "notice");
        String link = link(notice);
        String body = slack ? slackBody(notice, link) : jsonBody(notice, link);
        String delivery = UUID.randomUUID().toString();
        String last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            if (attempt > 1) {
                Thread.sleep(backoffBefore(attempt).toMillis());
            }
            String timestamp = Long.toString(Instant.now().getEpochSecond());
            HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Content-Type", "application/json; charset=utf-8")
                    .header("User-Agent", "Toolgate-Webhook")
                    .header("X-Toolgate-Event", notice.kind().wireName())
                    .header("X-Toolgate-Delivery", delivery)
                    .header("X-Toolgate-Timestamp", timestamp)
                    .header("X-Toolgate-Signature", sign(secret, timestamp, body))
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
            try {
                int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status >= 200 && status < 300) {
                    delivered.incrementAndGet();
                    return;
                }
                last = "HTTP " + status;
                if (!(status == 408 || status == 429 || status >= 500)) {
                    break;
                }
            } catch (IOException e) {
                last = e.getClass().getSimpleName();
            }
            LOG.debug("Webhook {} attempt {} of {} for {} {}: {}", where, attempt, maxAttempts, notice.kind().wireName(),
                    notice.callId(), last);
        }
        failed.incrementAndGet();
        LOG.warn("Webhook {} did not take the {} notice of call {} ({}): {}; giving up", where, notice.kind().wireName(),
                notice.callId(), notice.toolName(), last);
    }

    @Override
    public void dropped(ApprovalNotice notice) {
        dropped.incrementAndGet();
    }

    /** The wait before attempt {@code attempt} (2 or later): the backoff, doubled for each attempt after the second. */
    Duration backoffBefore(int attempt) {
        Duration wait = backoff;
        for (int i = 2; i < attempt && wait.compareTo(MAX_BACKOFF) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : wait;
    }

    /** The link for a notice: the template with its placeholders filled (URL-encoded), or null without a template. */
    String link(ApprovalNotice notice) {
        if (linkTemplate == null) {
            return null;
        }
        return linkTemplate.replace("{callId}", encode(notice.callId()))
                .replace("{tool}", encode(notice.toolName()))
                .replace("{event}", encode(notice.kind().wireName()))
                .replace("{tenant}", encode(notice.tenantId()))
                .replace("{executionId}", encode(notice.executionId()))
                .replace("{step}", notice.stepSeq() == null ? "" : notice.stepSeq().toString());
    }

    private static String encode(String value) {
        return value == null ? "" : URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The JSON document posted for a notice (without {@code slack}). */
    static String jsonBody(ApprovalNotice notice, String link) {
        ObjectNode body = Json.object();
        body.put("event", notice.kind().wireName());
        body.put("callId", notice.callId());
        body.put("tool", notice.toolName());
        body.put("effect", notice.effect().wireName());
        putIfSet(body, "summary", notice.summary());
        principal(body, "proposer", notice.proposer());
        putIfSet(body, "tenant", notice.tenantId());
        putIfSet(body, "session", notice.sessionId());
        putIfSet(body, "expiresAt", notice.expiresAt() == null ? null : notice.expiresAt().toString());
        putIfSet(body, "executionId", notice.executionId());
        if (notice.stepSeq() != null) {
            body.put("step", notice.stepSeq().intValue());
        }
        principal(body, "decidedBy", notice.decidedBy());
        putIfSet(body, "supersedes", notice.supersedes());
        putIfSet(body, "link", link);
        body.put("occurredAt", notice.occurredAt().toString());
        return Json.write(body);
    }

    /** The Slack-compatible document posted for a notice: {@code {"text": "..."}}. */
    static String slackBody(ApprovalNotice notice, String link) {
        String what = notice.isStep() ? "step " + notice.stepSeq() + " of run " + notice.executionId() + ": " : "";
        StringBuilder text = new StringBuilder();
        switch (notice.kind()) {
            case AWAITING_DECISION -> text.append("Approval needed: ");
            case APPLIED -> text.append("Approved and applied: ");
            case REJECTED -> text.append("Rejected: ");
            case SUPERSEDED -> text.append("Edited (replaced by a new proposal): ");
            case EXPIRED -> text.append("Expired without a decision: ");
        }
        text.append(what).append(slackEscape(notice.toolName())).append(" (").append(notice.effect().wireName()).append(')');
        if (notice.summary() != null) {
            text.append(" - ").append(slackEscape(notice.summary()));
        }
        text.append(". Proposed by ").append(slackEscape(notice.proposer().key()));
        if (notice.tenantId() != null) {
            text.append(" in ").append(slackEscape(notice.tenantId()));
        }
        if (notice.decidedBy() != null) {
            text.append("; decided by ").append(slackEscape(notice.decidedBy().key()));
        } else if (notice.kind() == NoticeKind.AWAITING_DECISION && notice.expiresAt() != null) {
            text.append("; expires ").append(notice.expiresAt());
        }
        text.append('.');
        if (link != null) {
            text.append(" <").append(link).append("|Open in the console>");
        }
        ObjectNode body = Json.object();
        body.put("text", text.toString());
        return Json.write(body);
    }

    /** Slack's control characters in message text. */
    private static String slackEscape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static void putIfSet(ObjectNode body, String name, String value) {
        if (value != null) {
            body.put(name, value);
        }
    }

    private static void principal(ObjectNode body, String name, PrincipalRef ref) {
        if (ref != null) {
            ObjectNode node = body.putObject(name);
            node.put("kind", ref.kind().name().toLowerCase(Locale.ROOT));
            node.put("id", ref.id());
        }
    }

    // ------------------------------------------------------------------------------------------ signatures

    /**
     * The {@code X-Toolgate-Signature} value for a body sent at {@code timestamp}:
     * {@code sha256=} and the lower-case hex HMAC-SHA256 with {@code secret} over
     * {@code timestamp + "." + body} (both UTF-8).
     */
    public static String signature(String secret, String timestamp, String body) {
        return sign(requireSecret(secret).getBytes(StandardCharsets.UTF_8), Objects.requireNonNull(timestamp, "timestamp"),
                Objects.requireNonNull(body, "body"));
    }

    /**
     * For receivers: whether {@code signatureHeader} is the signature of {@code body} sent at
     * {@code timestamp} with {@code secret}, compared in constant time. False (never an exception) for
     * a missing or malformed header or timestamp.
     */
    public static boolean verify(String secret, String timestamp, String body, String signatureHeader) {
        if (timestamp == null || body == null || signatureHeader == null || secret == null || secret.isBlank()) {
            return false;
        }
        byte[] expected = sign(secret.getBytes(StandardCharsets.UTF_8), timestamp, body).getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, signatureHeader.trim().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@link #verify(String, String, String, String)}, and the timestamp (epoch seconds) within
     * {@code tolerance} of {@code now}, so that a captured request cannot be replayed later.
     */
    public static boolean verify(String secret, String timestamp, String body, String signatureHeader, Duration tolerance,
                                 Instant now) {
        Objects.requireNonNull(tolerance, "tolerance");
        Objects.requireNonNull(now, "now");
        long sent;
        try {
            sent = Long.parseLong(String.valueOf(timestamp).trim());
        } catch (NumberFormatException e) {
            return false;
        }
        boolean fresh = Math.abs(now.getEpochSecond() - sent) <= tolerance.toSeconds();
        return verify(secret, timestamp, body, signatureHeader) & fresh;
    }

    private static String sign(byte[] key, String timestamp, String body) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            byte[] digest = mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
            return "sha256=" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    private static String requireSecret(String secret) {
        if (secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("a webhook secret must not be blank");
        }
        return secret;
    }

    @Override
    public String toString() {
        return "WebhookNotifier[" + where + (slack ? ", slack" : "") + "]";
    }

    /** Configures a {@link WebhookNotifier}. Not thread-safe. */
    public static final class Builder {
        private final URI url;
        private final String secret;
        private String linkTemplate;
        private Duration timeout = Duration.ofSeconds(10);
        private int maxAttempts = 3;
        private Duration backoff = Duration.ofSeconds(1);
        private boolean slack;

        private Builder(String url, String secret) {
            this.url = httpUrl(url, "the webhook URL");
            this.secret = requireSecret(secret);
        }

        /**
         * The link each notice carries, with placeholders {@code {callId}}, {@code {tool}},
         * {@code {event}}, {@code {tenant}}, {@code {executionId}} and {@code {step}} (values URL-encoded,
         * empty when absent), for example {@code https://ops.example.com/console/#inbox?call={callId}}.
         * Null for none (the default).
         *
         * @throws IllegalArgumentException the template is not an http(s) URL
         */
        public Builder linkTemplate(String template) {
            if (template != null) {
                httpUrl(template.replaceAll("\\{[A-Za-z]+}", "x"), "the link template");
            }
            this.linkTemplate = template;
            return this;
        }

        /** How long connecting and each request may take (default 10 seconds). */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Attempts per notice, 1 to 10 (default 3). */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1 || attempts > 10) {
                throw new IllegalArgumentException("maxAttempts must be between 1 and 10, got " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * The wait before the second attempt (default 1 second); it doubles before each later one, up
         * to a minute. Zero retries at once.
         */
        public Builder backoff(Duration backoff) {
            Objects.requireNonNull(backoff, "backoff");
            if (backoff.isNegative()) {
                throw new IllegalArgumentException("backoff must not be negative, got " + backoff);
            }
            this.backoff = backoff;
            return this;
        }

        /** Whether to post a Slack-compatible {@code {"text": "..."}} body instead of the JSON document (default false). */
        public Builder slack(boolean slack) {
            this.slack = slack;
            return this;
        }

        /** The notifier. */
        public WebhookNotifier build() {
            return new WebhookNotifier(this);
        }

        private static URI httpUrl(String text, String what) {
            if (text == null) {
                throw new IllegalArgumentException(what + " must not be null");
            }
            URI uri;
            try {
                uri = URI.create(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(what + " is not a valid URL"); // the URL itself may be a credential
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw new IllegalArgumentException(what + " must be an absolute http or https URL with a host, got scheme '"
                        + scheme + "'");
            }
            return uri;
        }
    }
}
