package dev.toolgate.openapi;

import dev.toolgate.gate.SourceUnavailableException;
import dev.toolgate.json.Json;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceToolException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Sends a {@link RequestPlan} with the source's credentials and turns the answer into a tool result. */
final class HttpExchange {

    private static final int MAX_REDIRECTS = 5;
    private static final int ERROR_EXCERPT = 500;

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

    JsonNode send(RequestPlan plan, SourceContext context) throws InterruptedException {
        long deadline = System.nanoTime() + context.timeout().toNanos();
        URI url = plan.url();
        boolean read = plan.method().equals("GET") || plan.method().equals("HEAD") || plan.method().equals("OPTIONS");
        for (int hop = 0; ; hop++) {
            HttpResponse<CappedBody.Bytes> response = exchange(plan, url, context, deadline);
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
                            + (target == null ? "an unreadable location" : target.getScheme() + "://" + target.getHost())
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

    private HttpResponse<CappedBody.Bytes> exchange(RequestPlan plan, URI url, SourceContext context, long deadline)
            throws InterruptedException {
        Map<String, String> headers = new LinkedHashMap<>(plan.headers());
        StringBuilder query = new StringBuilder(url.getRawQuery() == null ? "" : url.getRawQuery());
        for (Credential credential : credentials) {
            credential.apply(context.secrets(), headers, query);
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
        String when = plan.method().equals("GET") || plan.method().equals("HEAD") ? ""
                : "; the request may or may not have taken effect";
        return new SourceToolException(plan.method() + " " + path(url) + " got no answer within "
                + context.timeout().toMillis() + " ms" + when);
    }

    private static JsonNode result(RequestPlan plan, URI url, HttpResponse<CappedBody.Bytes> response) {
        int status = response.statusCode();
        byte[] bytes = response.body().bytes();
        boolean truncated = response.body().truncated();
        String contentType = response.headers().firstValue("content-type").orElse("");
        if (status >= 400) {
            String excerpt = new String(bytes, 0, Math.min(bytes.length, ERROR_EXCERPT), StandardCharsets.UTF_8).strip();
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
            result.put("body", new String(bytes, StandardCharsets.UTF_8));
        } else {
            result.put("body", "(" + bytes.length + (truncated ? "+" : "") + " bytes of " + contentType + ", not shown)");
        }
        if (truncated) {
            result.put("truncated", true);
        }
        return result;
    }

    private static URI resolve(URI base, String location) {
        try {
            return base.resolve(location.strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** A redirect target as the next request's URL (credentials are added again to each request). */
    private URI withoutCredentialQuery(URI target) {
        return URI.create(target.getScheme() + "://" + target.getRawAuthority() + target.getRawPath()
                + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery()));
    }

    /** The path of a URL for messages: never the query, which may hold a credential. */
    private static String path(URI url) {
        return url.getRawPath();
    }

    void close() {
        // HttpClient has no close on Java 17; its threads stop once it is unreachable
    }
}
