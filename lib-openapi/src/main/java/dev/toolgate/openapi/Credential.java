package dev.toolgate.openapi;

import dev.toolgate.source.SecretResolver;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How the source authenticates to the API, by the names of the host's secrets. Values are resolved
 * for each request (so a rotated secret is used at once), added after the proposal is described, and
 * never shown to the model, the operator or the audit. The gate cuts the values it handed out from
 * what comes back; the forms a value takes on the wire (percent-encoded in a query, base64 in basic
 * authentication) only the source knows, so it reports them for the exchange to cut out.
 */
sealed interface Credential {

    /**
     * Adds the credential to a request's headers or query, and to {@code wire} each form in which a
     * secret travels other than its plain value.
     */
    void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query, Set<String> wire);

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
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query, Set<String> wire) {
            headers.put("Authorization", "Bearer " + secrets.require(secret));
        }

        @Override
        public String header() {
            return "authorization";
        }
    }

    record Basic(String userSecret, String passwordSecret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query, Set<String> wire) {
            String pair = secrets.require(userSecret) + ":" + secrets.require(passwordSecret);
            String encoded = Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
            headers.put("Authorization", "Basic " + encoded);
            wire.add(encoded);
            wire.add(encoded.replace("=", ""));
        }

        @Override
        public String header() {
            return "authorization";
        }
    }

    record Header(String name, String secret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query, Set<String> wire) {
            headers.put(name, secrets.require(secret));
        }

        @Override
        public String header() {
            return name.toLowerCase(Locale.ROOT);
        }
    }

    record Query(String name, String secret) implements Credential {
        @Override
        public void apply(SecretResolver secrets, Map<String, String> headers, StringBuilder query, Set<String> wire) {
            if (query.length() > 0) {
                query.append('&');
            }
            String value = secrets.require(secret);
            String encoded = RequestPlan.encode(value);
            query.append(RequestPlan.encode(name)).append('=').append(encoded);
            wire.add(encoded);
            // as a server may write it back: form-encoded, a space as '+'
            wire.add(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }

        @Override
        public String queryParameter() {
            return name;
        }
    }
}
