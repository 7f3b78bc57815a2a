package dev.toolgate.spi;

import dev.toolgate.audit.CallRecord;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory store's {@link ConversationStore}: which delivery told each decided proposal, beside
 * the call records it reads. A mark goes with its record when the store evicts or purges the record.
 */
final class InMemoryConversations implements ConversationStore {

    private final Map<String, CallRecord> records;
    private final Clock clock;
    /** Delivery id by call id. */
    private final Map<String, String> told = new ConcurrentHashMap<>();

    InMemoryConversations(Map<String, CallRecord> records, Clock clock) {
        this.records = records;
        this.clock = clock;
    }

    @Override
    public List<CallRecord> untold(String sessionId, String principalKey, int limit) {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(principalKey, "principalKey");
        if (told.size() > records.size()) {
            told.keySet().removeIf(id -> !records.containsKey(id)); // marks of evicted or purged calls
        }
        var now = clock.instant();
        return records.values().stream()
                .filter(r -> sessionId.equals(r.sessionId())
                        && (principalKey.equals(r.principal().key()) || r.supersedes() != null)
                        && !told.containsKey(r.id()) && ConversationStore.isDecided(r, now))
                .sorted(Comparator.comparing(ConversationStore::decidedAt).thenComparing(CallRecord::id))
                .limit(Math.max(0, limit))
                .toList();
    }

    @Override
    public boolean tell(String callId, String deliveryId) {
        Objects.requireNonNull(deliveryId, "deliveryId");
        CallRecord record = callId == null ? null : records.get(callId);
        // a decided proposal stays decided (its status only moves between decided statuses), so checking
        // before marking is as good as checking while marking
        return record != null && ConversationStore.isDecided(record, clock.instant()) && told.putIfAbsent(callId, deliveryId) == null;
    }

    @Override
    public boolean untell(String callId, String deliveryId) {
        return callId != null && deliveryId != null && told.remove(callId, deliveryId);
    }
}
