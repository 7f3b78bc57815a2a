package dev.toolgate.source;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where tool sources get their credentials: the host implements it over its vault, its environment
 * or its configuration. Toolgate asks for a secret by name when a source connects and never stores,
 * logs or returns the value; values a source was given are also scrubbed from that source's results
 * and error messages before anything else sees them.
 *
 * <p>Give one to {@code Toolgate.builder().secrets(...)}, or list an implementation in
 * {@code META-INF/services/dev.toolgate.source.SecretResolver}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface SecretResolver {

    /** The secret called {@code name}, or empty if there is none. */
    Optional<String> secret(String name);

    /**
     * The secret called {@code name}.
     *
     * @throws MissingSecretException if there is none (a source then reports itself unavailable)
     */
    default String require(String name) {
        return secret(name).filter(value -> !value.isEmpty()).orElseThrow(() -> new MissingSecretException(name));
    }

    /** A resolver over a fixed map, for tests and small hosts. */
    static SecretResolver of(Map<String, String> secrets) {
        Map<String, String> copy = Map.copyOf(secrets);
        return name -> Optional.ofNullable(copy.get(name));
    }

    /** A resolver that has no secrets. */
    static SecretResolver none() {
        return name -> Optional.empty();
    }

    /** A secret a source needs is not configured. The message names the secret, never a value. */
    final class MissingSecretException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String secretName;

        /** @param secretName the secret that is missing */
        public MissingSecretException(String secretName) {
            super("the secret '" + Objects.requireNonNull(secretName, "secretName") + "' is not configured");
            this.secretName = secretName;
        }

        /** The missing secret's name. */
        public String secretName() {
            return secretName;
        }
    }
}
