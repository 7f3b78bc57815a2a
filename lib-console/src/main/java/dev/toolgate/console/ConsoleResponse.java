package dev.toolgate.console;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console's answer to a {@link ConsoleRequest}: a status, headers (each may repeat, such as
 * {@code Set-Cookie}) and a body, to be written as they are. Bodies of 204 and 304 answers are empty.
 */
public final class ConsoleResponse {

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    ConsoleResponse(int status, Map<String, List<String>> headers, byte[] body) {
        this.status = status;
        Map<String, List<String>> copy = new LinkedHashMap<>();
        headers.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.headers = Collections.unmodifiableMap(copy);
        this.body = body;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** Every header, in the order set; values in order. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** The first value of a header (exact name as set, or case-insensitive match). */
    public Optional<String> header(String name) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                return Optional.of(e.getValue().get(0));
            }
        }
        return Optional.empty();
    }

    /** The body (a copy); empty for 204 and 304. */
    public byte[] body() {
        return body.clone();
    }

    byte[] bodyUnsafe() {
        return body;
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ConsoleResponse[" + status + ", " + body.length + " bytes]";
    }

    /** Collects headers for a response. */
    static final class Headers {
        private final Map<String, List<String>> values = new LinkedHashMap<>();

        Headers set(String name, String value) {
            List<String> list = new ArrayList<>();
            list.add(value);
            values.put(name, list);
            return this;
        }

        Headers add(String name, String value) {
            values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            return this;
        }

        Map<String, List<String>> map() {
            return values;
        }
    }
}
