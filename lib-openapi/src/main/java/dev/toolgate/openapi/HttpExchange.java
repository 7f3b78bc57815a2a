package dev.toolgate.openapi;

import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.json.Json;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceToolException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/** Sends a {@link RequestPlan} with the source's credentials and turns the answer into a tool result. */
final class HttpExchange {

    private static final int MAX_REDIRECTS = 5;
    private static final int ERROR_EXCERPT = 500;
    /** The most of the gate's call timeout kept back so that this source's own timeout message is the one seen. */
    private static final Duration MAX_MARGIN = Duration.ofSeconds(1);
    /** As the gate's own scrubbing: shorter forms would cut ordinary words out of results. */
    private static final int MIN_SCRUBBED = 4;
    private static final String REDACTED = "[redacted]";

    private final String sourceId;
    private final HttpClient client;
    private final List<Credential> credentials;
    private final int maxResponseBytes;

    HttpExchange(String sourceId, HttpClient client, List<Credential> credentials, int maxResponseBytes) {
        this.sourceId = sourceId;
        this.client = client;
        this.credentials = credentials;
        this.maxResponseBytes = maxResponseBytes;
    }

    static HttpClient newClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /**
     * Sends the plan, follows a read's same-origin redirects, and returns the result. The forms the
     * credentials took on the wire are cut out of the result and of any failure's message.
     */
    JsonNode send(RequestPlan plan, SourceContext context) throws InterruptedException {
        Set<String> wire = ConcurrentHashMap.newKeySet();
        try {
            return scrub(follow(plan, context, wire), wire);
        } catch (SourceUnavailableException e) {
            throw new SourceUnavailableException(e.callId(), e.toolName(), e.sourceId(), scrub(e.getMessage(), wire));
        } catch (SourceToolException e) {
            throw new SourceToolException(scrub(e.getMessage(), wire));
        }
    }

    private JsonNode follow(RequestPlan plan, SourceContext context, Set<String> wire) throws InterruptedException {
        long deadline = System.nanoTime() + budget(context.timeout()).toNanos();
        URI url = plan.url();
        boolean read = plan.method().equals("GET") || plan.method().equals("HEAD") || plan.method().equals("OPTIONS");
        for (int hop = 0; ; hop++) {
            HttpResponse<CappedBody.Bytes> response = exchange(plan, url, context, deadline, wire);
            int status = response.statusCode();
            String location = response.headers().firstValue("location").orElse(null);
            if (status >= 300 && status < 400 && location != null) {
                URI target = resolve(url, location);
                if (!read) {
                    // a write is not sent again to wherever the answer points: report where it pointed
                    ObjectNode result = Json.object().put("status", status);
                    result.put("location", target == null ? location : target.toString());
                    return result;
                }
                if (target == null || !Servers.sameOrigin(url, target)) {
                    throw new SourceToolException(plan.method() + " " + path(url) + " was redirected to another host ("
                            + (target == null ? "an unreadable location" : target.getScheme() + "://" + target.getHost()
                                    + (target.getPort() == -1 ? "" : ":" + target.getPort()))
                            + "); the redirect is not followed");
                }
                if (hop >= MAX_REDIRECTS) {
                    throw new SourceToolException(plan.method() + " " + path(plan.url()) + " was redirected more than "
                            + MAX_REDIRECTS + " times");
                }
                url = withoutCredentialQuery(target);
                continue;
            }
            return result(plan, url, response);
        }
    }

    private HttpResponse<CappedBody.Bytes> exchange(RequestPlan plan, URI url, SourceContext context, long deadline,
                                                    Set<String> wire) throws InterruptedException {
        Map<String, String> headers = new LinkedHashMap<>(plan.headers());
        StringBuilder query = new StringBuilder(url.getRawQuery() == null ? "" : url.getRawQuery());
        for (Credential credential : credentials) {
            credential.apply(context.secrets(), headers, query, wire);
        }
        URI target = URI.create(url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath()
                + (query.length() == 0 ? "" : "?" + query));
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            throw timedOut(plan, url, context);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .timeout(Duration.ofNanos(remaining))
                .header("Accept", "application/json, */*;q=0.1");
        headers.forEach(request::header);
        if (plan.body() != null) {
            request.header("Content-Type", plan.mediaType());
            request.method(plan.method(), HttpRequest.BodyPublishers.ofByteArray(plan.body()));
        } else {
            request.method(plan.method(), HttpRequest.BodyPublishers.noBody());
        }
        CompletableFuture<HttpResponse<CappedBody.Bytes>> future =
                client.sendAsync(request.build(), CappedBody.handler(maxResponseBytes));
        try {
            return future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw timedOut(plan, url, context);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException
                    || cause instanceof java.nio.channels.UnresolvedAddressException
                    || cause instanceof java.net.UnknownHostException) {
                throw new SourceUnavailableException(null, null, sourceId, sourceId + " cannot be reached at "
                        + url.getScheme() + "://" + url.getRawAuthority() + ": " + cause.getClass().getSimpleName());
            }
            if (cause instanceof HttpTimeoutException) {
                throw timedOut(plan, url, context);
            }
            if (cause instanceof IOException) {
                throw new SourceToolException(plan.method() + " " + path(url) + " failed: " + cause.getClass().getSimpleName()
                        + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
            }
            throw new SourceToolException(plan.method() + " " + path(url) + " failed: " + cause);
        }
    }

    private SourceToolException timedOut(RequestPlan plan, URI url, SourceContext context) {
        String when = plan.method().equals("GET") || plan.method().equals("HEAD") || plan.method().equals("OPTIONS") ? ""
                : "; the request may or may not have taken effect";
        return new SourceToolException(plan.method() + " " + path(url) + " got no answer within "
                + budget(context.timeout()).toMillis() + " ms" + when);
    }

    /**
     * How long a call may take here: the gate's call timeout less a margin (a quarter, at most a
     * second). The gate times the same call out at its full timeout with a bare "timed out"; ending
     * first lets the caller read this source's message, which says whether a write may have taken effect.
     */
    static Duration budget(Duration timeout) {
        Duration quarter = timeout.dividedBy(4);
        return timeout.minus(quarter.compareTo(MAX_MARGIN) < 0 ? quarter : MAX_MARGIN);
    }

    private static JsonNode result(RequestPlan plan, URI url, HttpResponse<CappedBody.Bytes> response) {
        int status = response.statusCode();
        byte[] bytes = response.body().bytes();
        boolean truncated = response.body().truncated();
        String contentType = response.headers().firstValue("content-type").orElse("");
        Charset charset = charset(contentType);
        if (status >= 400) {
            String excerpt = new String(bytes, 0, Math.min(bytes.length, ERROR_EXCERPT), charset).strip();
            throw new SourceToolException(plan.method() + " " + path(url) + " answered HTTP " + status
                    + (excerpt.isEmpty() ? "" : ": " + excerpt + (bytes.length > ERROR_EXCERPT ? "…" : "")));
        }
        ObjectNode result = Json.object().put("status", status);
        if (bytes.length == 0) {
            return result;
        }
        String type = contentType.toLowerCase(Locale.ROOT);
        if (!contentType.isEmpty()) {
            result.put("contentType", contentType);
        }
        if (OperationReader.isJson(type.isEmpty() ? "application/json" : type) && !truncated) {
            try {
                result.set("body", Json.mapper().readTree(bytes));
                return result;
            } catch (JacksonException e) {
                // not JSON after all: fall through to text
            }
        }
        if (type.isEmpty() || type.startsWith("text/") || type.contains("json") || type.contains("xml")
                || type.contains("yaml") || type.contains("x-www-form-urlencoded")) {
            result.put("body", new String(bytes, charset));
        } else {
            result.put("body", "(" + bytes.length + (truncated ? "+" : "") + " bytes of " + contentType + ", not shown)");
        }
        if (truncated) {
            result.put("truncated", true);
        }
        return result;
    }

    /** {@code text} with each wire form of a credential (at least {@value #MIN_SCRUBBED} characters) cut out. */
    private static String scrub(String text, Set<String> wire) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String form : wire.stream().filter(f -> f.length() >= MIN_SCRUBBED)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList()) {
            out = out.replace(form, REDACTED);
        }
        return out;
    }

    /** A result with each wire form of a credential cut out of its strings and member names. */
    private static JsonNode scrub(JsonNode node, Set<String> wire) {
        if (node.isString()) {
            String text = node.asString();
            String clean = scrub(text, wire);
            return clean.equals(text) ? node : StringNode.valueOf(clean);
        }
        if (node instanceof ObjectNode object) {
            ObjectNode copy = object.objectNode();
            for (Map.Entry<String, JsonNode> member : object.properties()) {
                copy.set(scrub(member.getKey(), wire), scrub(member.getValue(), wire));
            }
            return copy;
        }
        if (node instanceof ArrayNode array) {
            ArrayNode copy = array.arrayNode();
            array.forEach(element -> copy.add(scrub(element, wire)));
            return copy;
        }
        return node;
    }

    /** The charset a Content-Type names, UTF-8 if it names none or one this JVM does not know. */
    private static Charset charset(String contentType) {
        for (String parameter : contentType.split(";")) {
            String[] pair = parameter.strip().split("=", 2);
            if (pair.length == 2 && pair[0].strip().equalsIgnoreCase("charset")) {
                try {
                    return Charset.forName(pair[1].strip().replace("\"", ""));
                } catch (IllegalArgumentException e) {
                    return StandardCharsets.UTF_8;
                }
            }
        }
        return StandardCharsets.UTF_8;
    }

    private static URI resolve(URI base, String location) {
        try {
            return base.resolve(location.strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * A redirect target as the next request's URL, without the credential's query parameters a server
     * may have copied into its Location: credentials are added again to each request, once.
     */
    private URI withoutCredentialQuery(URI target) {
        StringBuilder query = new StringBuilder();
        if (target.getRawQuery() != null) {
            for (String pair : target.getRawQuery().split("&")) {
                String name = pair.split("=", 2)[0];
                try {
                    name = URLDecoder.decode(name, StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    // not a credential's name either
                }
                String decoded = name;
                if (credentials.stream().noneMatch(c -> decoded.equals(c.queryParameter()))) {
                    query.append(query.length() == 0 ? "?" : "&").append(pair);
                }
            }
        }
        // the authority without userinfo: a location's credentials are never sent on
        return URI.create(target.getScheme() + "://" + target.getHost() + (target.getPort() == -1 ? "" : ":" + target.getPort())
                + target.getRawPath() + query);
    }

    /** The path of a URL for messages: never the query, which may hold a credential. */
    private static String path(URI url) {
        return url.getRawPath();
    }

    void close() {
        // HttpClient has no close on Java 17; its threads stop once it is unreachable
    }
}
