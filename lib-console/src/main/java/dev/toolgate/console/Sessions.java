package dev.toolgate.console;

import dev.toolgate.call.CallContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Signed-in sessions, kept in this process only. The cookie holds 32 random bytes; the map is keyed by
 * their SHA-256, so neither a heap dump nor a timing difference in the lookup gives a usable cookie.
 * Each session has its own CSRF token. Sessions end at {@code timeout} after sign-in, after
 * {@code idleTimeout} without a request, at sign-out, or when the host's authenticator no longer knows
 * the person; beyond {@code maxSessions} the least recently used one ends.
 */
final class Sessions {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** One signed-in person. */
    static final class Session {
        final String key;
        final String csrf;
        final Instant expiresAt;
        volatile CallContext context;
        volatile Instant lastSeen;

        Session(String key, String csrf, Instant expiresAt, CallContext context, Instant now) {
            this.key = key;
            this.csrf = csrf;
            this.expiresAt = expiresAt;
            this.context = context;
            this.lastSeen = now;
        }

        boolean csrfMatches(String candidate) {
            return candidate != null && MessageDigest.isEqual(csrf.getBytes(StandardCharsets.UTF_8),
                    candidate.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A new session and the cookie value that names it. */
    record Created(Session session, String cookie) {
    }

    private final Map<String, Session> byKey = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Duration timeout;
    private final Duration idleTimeout;
    private final int maxSessions;

    Sessions(Clock clock, Duration timeout, Duration idleTimeout, int maxSessions) {
        this.clock = clock;
        this.timeout = timeout;
        this.idleTimeout = idleTimeout;
        this.maxSessions = maxSessions;
    }

    Created create(CallContext context) {
        Instant now = clock.instant();
        purgeExpired(now);
        while (byKey.size() >= maxSessions) {
            byKey.values().stream().min(Comparator.comparing(s -> s.lastSeen)).ifPresent(s -> byKey.remove(s.key));
        }
        String cookie = random();
        Session session = new Session(digest(cookie), random(), now.plus(timeout), context, now);
        byKey.put(session.key, session);
        return new Created(session, cookie);
    }

    /** The live session a cookie names; touches it. */
    Optional<Session> find(String cookie) {
        if (cookie == null || cookie.isEmpty() || cookie.length() > 100) {
            return Optional.empty();
        }
        Session session = byKey.get(digest(cookie));
        if (session == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (!now.isBefore(session.expiresAt) || !now.isBefore(session.lastSeen.plus(idleTimeout))) {
            byKey.remove(session.key);
            return Optional.empty();
        }
        session.lastSeen = now;
        return Optional.of(session);
    }

    void end(Session session) {
        byKey.remove(session.key);
    }

    int size() {
        return byKey.size();
    }

    private void purgeExpired(Instant now) {
        byKey.values().removeIf(s -> !now.isBefore(s.expiresAt) || !now.isBefore(s.lastSeen.plus(idleTimeout)));
    }

    private static String random() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return B64.encodeToString(bytes);
    }

    static String digest(String value) {
        return InboxApi.sha256(value);
    }

    /**
     * Failed sign-ins per client address in a sliding minute; at {@code limit} the address is refused
     * until the oldest failure leaves the window. Keeps at most 10,000 addresses (least recent go).
     */
    static final class LoginThrottle {
        private static final int MAX_ADDRESSES = 10_000;
        private final Clock clock;
        private final int limit;
        private final Duration window;
        private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(64, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Deque<Instant>> eldest) {
                return size() > MAX_ADDRESSES;
            }
        };

        LoginThrottle(Clock clock, int limit, Duration window) {
            this.clock = clock;
            this.limit = limit;
            this.window = window;
        }

        /** How long until the address may try again; zero if it may now. */
        synchronized Duration retryAfter(String address) {
            Deque<Instant> list = failures.get(address);
            if (list == null) {
                return Duration.ZERO;
            }
            Instant now = clock.instant();
            while (!list.isEmpty() && !list.peekFirst().plus(window).isAfter(now)) {
                list.pollFirst();
            }
            if (list.size() < limit) {
                return Duration.ZERO;
            }
            return Duration.between(now, list.peekFirst().plus(window));
        }

        synchronized void failed(String address) {
            failures.computeIfAbsent(address, a -> new ArrayDeque<>()).addLast(clock.instant());
            Deque<Instant> list = failures.get(address);
            while (list.size() > limit) {
                list.pollFirst();
            }
        }

        synchronized void succeeded(String address) {
            failures.remove(address);
        }
    }
}
