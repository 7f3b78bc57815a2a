package dev.toolgate.console;

import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import java.net.URLDecoder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** One request being answered: the request, its session once checked, and readers of its input. */
final class Exchange {

    final ConsoleRequest request;
    Sessions.Session session;

    Exchange(ConsoleRequest request) {
        this.request = request;
    }

    /** The signed-in person's context (only after the session was checked). */
    CallContext context() {
        return session.context.withTransport("console");
    }

    /** The body as a JSON object; 415 unless sent as JSON, 400 unless an object. */
    ObjectNode jsonBody() {
        String type = request.header("Content-Type").orElse("").toLowerCase(Locale.ROOT);
        int semi = type.indexOf(';');
        if (!(semi < 0 ? type : type.substring(0, semi)).trim().equals("application/json")) {
            throw new ConsoleException(415, "unsupported_media_type", "Send the body as application/json.");
        }
        if (request.bodyLength() > ToolgateConsole.MAX_BODY_BYTES) {
            throw new ConsoleException(413, "too_large",
                    "The body is larger than " + ToolgateConsole.MAX_BODY_BYTES + " bytes.");
        }
        if (request.bodyLength() == 0) {
            return Json.object();
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(request.bodyUnsafe())).toString();
        } catch (CharacterCodingException e) {
            throw ConsoleException.badRequest(null, "The body is not valid UTF-8.");
        }
        JsonNode node;
        try {
            node = Json.parse(text);
        } catch (RuntimeException e) {
            throw ConsoleException.badRequest(null, "The body is not valid JSON.");
        }
        if (node == null || !node.isObject()) {
            throw ConsoleException.badRequest(null, "The body must be a JSON object.");
        }
        return (ObjectNode) node;
    }

    /** A text field: absent or null gives empty unless {@code required}; 400 if not text or too long. */
    static Optional<String> text(ObjectNode body, String field, boolean required, int maxLength) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            if (required) {
                throw ConsoleException.badRequest(field, "'" + field + "' is required.");
            }
            return Optional.empty();
        }
        if (!node.isString()) {
            throw ConsoleException.badRequest(field, "'" + field + "' must be text.");
        }
        String value = node.asString();
        if (value.length() > maxLength) {
            throw ConsoleException.badRequest(field, "'" + field + "' is longer than " + maxLength + " characters.");
        }
        if (required && value.isBlank()) {
            throw ConsoleException.badRequest(field, "'" + field + "' must not be blank.");
        }
        return Optional.of(value);
    }

    /** A boolean field, false when absent; 400 if not a boolean. */
    static boolean flag(ObjectNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw ConsoleException.badRequest(field, "'" + field + "' must be true or false.");
        }
        return node.asBoolean();
    }

    /** The decoded query parameters (the last value of a repeated one wins); 400 on bad encoding. */
    Map<String, String> query() {
        Map<String, String> values = new LinkedHashMap<>();
        String raw = request.query();
        if (raw.isEmpty()) {
            return values;
        }
        if (raw.length() > 4096) {
            throw ConsoleException.badRequest(null, "The query string is too long.");
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                values.put(name, value);
            } catch (IllegalArgumentException e) {
                throw ConsoleException.badRequest(null, "The query string is not properly encoded.");
            }
        }
        return values;
    }
}
