package dev.toolgate.console;

import dev.toolgate.json.Json;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Builds responses; every one carries the console's security headers. */
final class Responses {

    /** No inline script or style, nothing from elsewhere, never framed. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private Responses() {
    }

    static ConsoleResponse.Headers secured() {
        return new ConsoleResponse.Headers()
                .set("Content-Security-Policy", CSP)
                .set("X-Content-Type-Options", "nosniff")
                .set("X-Frame-Options", "DENY")
                .set("Referrer-Policy", "no-referrer")
                .set("Cross-Origin-Opener-Policy", "same-origin")
                .set("Cross-Origin-Resource-Policy", "same-origin");
    }

    static ConsoleResponse json(int status, JsonNode body) {
        return json(status, body, secured());
    }

    static ConsoleResponse json(int status, JsonNode body, ConsoleResponse.Headers headers) {
        headers.set("Content-Type", "application/json; charset=utf-8").set("Cache-Control", "no-store");
        return new ConsoleResponse(status, headers.map(), Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    static ConsoleResponse empty(int status, ConsoleResponse.Headers headers) {
        return new ConsoleResponse(status, headers.map(), new byte[0]);
    }

    static ConsoleResponse error(ConsoleException e) {
        ObjectNode body = Json.object().put("error", e.code).put("message", e.getMessage());
        if (e.field != null) {
            body.put("field", e.field);
        }
        if (e instanceof SignInError signIn) {
            body.put("signIn", signIn.signIn);
        }
        if (e instanceof InboxApi.AlreadyDecided decided) {
            body.put("status", decided.current.wireName()).put("by", decided.by == null ? null : decided.by.id());
        }
        ConsoleResponse.Headers headers = secured();
        if (e.status == 405) {
            headers.set("Allow", "GET, POST");
        }
        if (e instanceof LoginThrottled throttled) {
            headers.set("Retry-After", Long.toString(throttled.retryAfterSeconds));
        }
        return json(e.status, body, headers);
    }

    static ConsoleResponse redirect(String location) {
        return empty(308, secured().set("Location", location).set("Cache-Control", "no-store"));
    }
}
