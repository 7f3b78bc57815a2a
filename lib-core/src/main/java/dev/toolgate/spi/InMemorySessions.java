package dev.toolgate.spi;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.spi.CallStore.ProposeResult;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The sessions part of {@link InMemoryStore}: each session's pending proposals, which the pending cap
 * counts, and the purge and sweep of sessions with nothing pending.
 */
final class InMemorySessions {

    private final Clock clock;
    /** The calls, by id: a session's proposal is pending while its record is. */
    private final Map<String, CallRecord> records;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final InMemoryIdleSweep sessionSweep = new InMemoryIdleSweep();

    InMemorySessions(Clock clock, Map<String, CallRecord> records) {
        this.clock = clock;
        this.records = records;
    }

    /** Session rows stored. */
    int size() {
        return sessions.size();
    }

    private Instant now() {
        return clock.instant();
    }

    /**
     * Stores a proposal through {@code insertAt} (given the store time, it returns the record stored)
     * unless its session already holds {@code maxPendingPerSession} pending proposals.
     */
    ProposeResult propose(String sessionId, int maxPendingPerSession, Function<Instant, CallRecord> insertAt) {
        ProposeResult result = null;
        while (result == null) {
            Session session = sessionId == null ? null : sessions.computeIfAbsent(sessionId, k -> new Session());
            synchronized (session == null ? new Object() : session) {
                if (session != null && session.retired) {
                    continue;
                }
                Instant now = now();
                if (session != null) {
                    forgetClosed(session, now);
                    if (session.pending.size() >= maxPendingPerSession) {
                        result = new ProposeResult(ProposeResult.Status.PENDING_LIMIT, null);
                        continue;
                    }
                }
                CallRecord stored = insertAt.apply(now);
                if (session != null) {
                    session.pending.add(stored.id());
                    session.lastProposedAt = stored.createdAt();
                }
                result = new ProposeResult(ProposeResult.Status.PROPOSED, stored);
            }
        }
        // sessions with nothing pending are dropped in sweeps, outside any session's monitor
        sessionSweep.check(sessions.size(), () -> {
            purge(Instant.MAX, Integer.MAX_VALUE);
            return sessions.size();
        });
        return result;
    }

    /** How many proposals of the session are pending now. */
    int countPending(String sessionId) {
        Session session = sessions.get(sessionId);
        if (session == null) {
            return 0;
        }
        synchronized (session) {
            forgetClosed(session, now());
            return session.pending.size();
        }
    }

    /** Drops proposals that are no longer pending from a session's set, so it stays small; caller holds its monitor. */
    private void forgetClosed(Session session, Instant now) {
        session.pending.removeIf(id -> {
            CallRecord r = records.get(id);
            return r == null || !r.pendingAt(now);
        });
    }

    /** Drops at most {@code limit} sessions with nothing pending that last proposed before {@code before}. */
    int purge(Instant before, int limit) {
        Instant now = now();
        int purged = 0;
        for (Map.Entry<String, Session> entry : sessions.entrySet()) {
            if (purged >= limit) {
                break;
            }
            Session session = entry.getValue();
            synchronized (session) {
                forgetClosed(session, now);
                if (session.pending.isEmpty() && (session.lastProposedAt == null || session.lastProposedAt.isBefore(before))) {
                    session.retired = true;
                    sessions.remove(entry.getKey(), session);
                    purged++;
                }
            }
        }
        return purged;
    }

    /** Drops the session's row if nothing of it is pending; whether it did. */
    boolean endSession(String sessionId) {
        Session session = sessionId == null ? null : sessions.get(sessionId);
        if (session == null) {
            return false;
        }
        synchronized (session) {
            forgetClosed(session, now());
            if (!session.pending.isEmpty() || session.retired) {
                return false;
            }
            session.retired = true;
            return sessions.remove(sessionId, session);
        }
    }

    /** A session's pending proposals (the pending cap) and when it last proposed; retired like a ledger. */
    private static final class Session {
        private final Set<String> pending = new java.util.HashSet<>();
        private Instant lastProposedAt;
        private boolean retired;
    }
}
