package dev.toolgate.openapi;

import dev.toolgate.source.SecretResolver;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;

/**
 * How the source authenticates to the API, by the names of the host's secrets. Values are resolved
 * for each request (so a rotated secret is used at once), added after the proposal is described, and
 * never shown to the model, the operator or the audit.
 */
sealed interface Credential {

    /** Adds the credential to a request's headers or query. */
    void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query);

    /** The header name it sets, lower case, or null. */
    default String header() {
        return null;
    }

    /** The query parameter it sets, or null. */
    default String queryParameter() {
        return null;
    }

    record Bearer(String secret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query) {
            headers.put("Authorization", "Bearer " + secrets.require(secret));
        }

        @Override
        public String header() {
            return "authorization";
        }
    }

    record Basic(String userSecret, String passwordSecret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query) {
            String pair = secrets.require(userSecret) + ":" + secrets.require(passwordSecret);
            headers.put("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public String header() {
            return "authorization";
        }
    }

    record Header(String name, String secret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query) {
            headers.put(name, secrets.require(secret));
        }

        @Override
        public String header() {
            return name.toLowerCase(Locale.ROOT);
        }
    }

    record Query(String name, String secret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query) {
            if (query.length() > 0) {
                query.append('&');
            }
            query.append(RequestPlan.encode(name)).append('=').append(RequestPlan.encode(secrets.require(secret)));
        }

        @Override
        public String queryParameter() {
            return name;
        }
    }
}
