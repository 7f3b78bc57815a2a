package dev.toolgate.context.web;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import javax.net.ssl.SSLSocketFactory;

/**
 * How {@code web.probeUrl} probes: timeouts, the body cap, the resolver and the TLS socket factory.
 * Immutable; build with {@link #builder()}, or take {@link #defaults()}.
 *
 * <p>Defaults: connect timeout 5 s, total deadline 10 s (resolution, connect, TLS handshake, request
 * and response together), body sample 16 KB, {@link HostResolver#system()}, the JVM's default
 * {@link SSLSocketFactory}, and no address allowance.
 */
public final class ProbeSettings {

    /** The largest body sample a setting may ask for: 1 MiB. */
    public static final int MAX_BODY_BYTES_LIMIT = 1024 * 1024;

    private final Duration connectTimeout;
    private final Duration totalTimeout;
    private final int maxBodyBytes;
    private final HostResolver resolver;
    private final SSLSocketFactory sslSocketFactory;
    private final Predicate<InetAddress> allowedForTesting;

    private ProbeSettings(Builder b) {
        this.connectTimeout = b.connectTimeout;
        this.totalTimeout = b.totalTimeout;
        this.maxBodyBytes = b.maxBodyBytes;
        this.resolver = b.resolver;
        this.sslSocketFactory = b.sslSocketFactory;
        this.allowedForTesting = b.allowedForTesting;
    }

    /** The defaults described above. */
    public static ProbeSettings defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The longest wait for the TCP connection (never more than what is left of the total deadline). */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** The deadline of the whole probe. */
    public Duration totalTimeout() {
        return totalTimeout;
    }

    /** The body sample cap in bytes; a longer body is cut there and marked truncated. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** The resolver, called once per probe of a host name. */
    public HostResolver resolver() {
        return resolver;
    }

    /** The factory that layers TLS over the checked connection. */
    public SSLSocketFactory sslSocketFactory() {
        return sslSocketFactory;
    }

    /** True if a test-only address allowance is set. */
    public boolean hasTestAllowance() {
        return allowedForTesting != null;
    }

    Predicate<InetAddress> allowedForTesting() {
        return allowedForTesting == null ? a -> false : allowedForTesting;
    }

    /** Builds {@link ProbeSettings}; each setter checks its value. */
    public static final class Builder {

        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration totalTimeout = Duration.ofSeconds(10);
        private int maxBodyBytes = 16 * 1024;
        private HostResolver resolver = HostResolver.system();
        private SSLSocketFactory sslSocketFactory;
        private Predicate<InetAddress> allowedForTesting;

        private Builder() {
        }

        /** The connect timeout, positive. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** The total deadline, positive and at most 5 minutes. */
        public Builder totalTimeout(Duration timeout) {
            positive(timeout, "totalTimeout");
            if (timeout.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("totalTimeout " + timeout + " is above 5 minutes");
            }
            this.totalTimeout = timeout;
            return this;
        }

        /** The body sample cap, 1 byte to {@link #MAX_BODY_BYTES_LIMIT}. */
        public Builder maxBodyBytes(int bytes) {
            if (bytes < 1 || bytes > MAX_BODY_BYTES_LIMIT) {
                throw new IllegalArgumentException("maxBodyBytes " + bytes + " is outside 1-" + MAX_BODY_BYTES_LIMIT);
            }
            this.maxBodyBytes = bytes;
            return this;
        }

        /** The resolver; every address it returns is checked, and it is called once per probe. */
        public Builder resolver(HostResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** The TLS socket factory, for a host with its own trust store; host names are always verified. */
        public Builder sslSocketFactory(SSLSocketFactory factory) {
            this.sslSocketFactory = Objects.requireNonNull(factory, "sslSocketFactory");
            return this;
        }

        /**
         * TEST ONLY: lets resolved addresses matching {@code allowed} pass the guard, so a test can
         * point a public-looking name at a local server through its {@link #resolver(HostResolver)}.
         * Every other check stays on: IP literals in URLs, internal names and every address the
         * predicate does not match are still refused. Never set this in production; a warning is
         * logged for each probe that uses it.
         */
        public Builder allowAddressesForTesting(Predicate<InetAddress> allowed) {
            this.allowedForTesting = Objects.requireNonNull(allowed, "allowed");
            return this;
        }

        /** TEST ONLY: {@link #allowAddressesForTesting} for loopback addresses; see its warning. */
        public Builder allowLoopbackForTesting() {
            return allowAddressesForTesting(InetAddress::isLoopbackAddress);
        }

        /** The settings. */
        public ProbeSettings build() {
            if (sslSocketFactory == null) {
                sslSocketFactory = (SSLSocketFactory) SSLSocketFactory.getDefault();
            }
            return new ProbeSettings(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
