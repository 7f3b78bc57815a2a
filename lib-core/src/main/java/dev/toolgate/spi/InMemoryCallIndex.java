package dev.toolgate.spi;

import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The call records of {@link InMemoryStore} and their indexes: newest first for queries, a logged
 * step once per (run, seq), a reverted call once. Every index shrinks with the record.
 */
final class InMemoryCallIndex {

    final Map<String, CallRecord> records = new ConcurrentHashMap<>();
    /** Newest first by creation time, then id, for queries. */
    final ConcurrentSkipListMap<String, String> order = new ConcurrentSkipListMap<>();
    /** The call id of each logged step, by execution id and seq: a step is logged once. */
    final Map<String, String> steps = new ConcurrentHashMap<>();
    /** The revert of each reverted call, by the reverted call's id: a call is reverted once. */
    final Map<String, String> reverts = new ConcurrentHashMap<>();

    /** Stores a new record in every index; a step already logged or an id already taken throws. */
    void insert(CallRecord record) {
        if (record.executionId() != null
                && steps.putIfAbsent(stepKey(record.executionId(), record.stepSeq()), record.id()) != null) {
            throw new StepTakenException(record.executionId(), record.stepSeq());
        }
        if (records.putIfAbsent(record.id(), record) != null) {
            throw new IllegalStateException("duplicate call id " + record.id());
        }
        order.put(orderKey(record), record.id());
    }

    private static String stepKey(String executionId, int seq) {
        return executionId + "\u0000" + seq;
    }

    /** Removes a removed record from every index. */
    void forgetIndexes(CallRecord r) {
        order.remove(orderKey(r));
        if (r.executionId() != null) {
            steps.remove(stepKey(r.executionId(), r.stepSeq()), r.id());
        }
        if (r.reverts() != null) {
            reverts.remove(r.reverts(), r.id());
        }
    }

    /** The record of {@code id}, if stored. */
    Optional<CallRecord> find(String id) {
        return id == null ? Optional.empty() : Optional.ofNullable(records.get(id));
    }

    /** The records {@code query} selects: a run's steps in order, else newest first from its cursor. */
    List<CallRecord> query(CallQuery query) {
        if (query.executionId() != null) {
            return records.values().stream().filter(query::matches)
                    .sorted(Comparator.comparing(CallRecord::stepSeq, Comparator.nullsLast(Comparator.naturalOrder())))
                    .limit(query.limit()).toList();
        }
        // newest first; a cursor starts right after its own position (its key need not be stored)
        Map<String, String> page = query.after() == null ? order : order.tailMap(orderKey(query.after().createdAt(),
                query.after().id()), false);
        return page.values().stream().map(records::get).filter(Objects::nonNull).filter(query::matches)
                .limit(query.limit()).toList();
    }

    /** Sorts newest first: inverted epoch nanos, then id. */
    private static String orderKey(CallRecord r) {
        return orderKey(r.createdAt(), r.id());
    }

    /**
     * The key of a (time, id) position: sorts as the newest-first order does (a fixed-width prefix,
     * then the id as {@link String#compareTo}). Times past the year 2262 (beyond what epoch nanos in a
     * long hold, only a hostile cursor's) sort as the oldest possible.
     */
    private static String orderKey(Instant createdAt, String id) {
        long nanos;
        try {
            nanos = Math.addExact(Math.multiplyExact(createdAt.getEpochSecond(), 1_000_000_000L), createdAt.getNano());
        } catch (ArithmeticException e) {
            nanos = Long.MAX_VALUE;
        }
        long inverted = Long.MAX_VALUE - nanos;
        if (inverted < 0) { // before 1970 by more than the long's range: only a hostile cursor's
            return String.format("%020d", inverted) + id;
        }
        // the same as String.format("%020d", inverted) + id, without a Formatter on every record
        String digits = Long.toString(inverted);
        StringBuilder key = new StringBuilder(20 + id.length());
        for (int i = digits.length(); i < 20; i++) {
            key.append('0');
        }
        return key.append(digits).append(id).toString();
    }
}
