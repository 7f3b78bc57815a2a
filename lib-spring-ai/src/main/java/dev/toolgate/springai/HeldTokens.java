package dev.toolgate.springai;

import dev.toolgate.call.Proposal;
import java.time.Clock;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens of proposals made through one {@link ToolgateToolCallbacks}, held in this process so the
 * model never sees them: by proposal id, dropped when taken or expired, at most {@code capacity}.
 */
final class HeldTokens {

    private record Held(String token, Instant expiresAt) {
    }

    private final Map<String, Held> byProposal = new ConcurrentHashMap<>();
    private final int capacity;
    private final Clock clock;

    HeldTokens(int capacity, Clock clock) {
        this.capacity = capacity;
        this.clock = clock;
    }

    void hold(Proposal proposal) {
        if (byProposal.size() >= capacity) {
            dropExpired();
        }
        if (byProposal.size() >= capacity) {
            // the oldest to expire goes first; the proposal itself stays in the inbox for approve()
            byProposal.entrySet().stream().min(Map.Entry.comparingByValue(
                    java.util.Comparator.comparing(Held::expiresAt))).ifPresent(e -> byProposal.remove(e.getKey()));
        }
        byProposal.put(proposal.callId(), new Held(proposal.token(), proposal.expiresAt()));
    }

    /** The token of {@code proposalId}; empty if unknown, dropped or expired (an expired one is dropped). */
    Optional<String> peek(String proposalId) {
        Held held = proposalId == null ? null : byProposal.get(proposalId);
        if (held == null) {
            return Optional.empty();
        }
        if (!held.expiresAt().isAfter(clock.instant())) {
            byProposal.remove(proposalId, held);
            return Optional.empty();
        }
        return Optional.of(held.token());
    }

    void drop(String proposalId) {
        byProposal.remove(proposalId);
    }

    int size() {
        return byProposal.size();
    }

    private void dropExpired() {
        Instant now = clock.instant();
        for (Iterator<Held> it = byProposal.values().iterator(); it.hasNext(); ) {
            if (!it.next().expiresAt().isAfter(now)) {
                it.remove();
            }
        }
    }
}
