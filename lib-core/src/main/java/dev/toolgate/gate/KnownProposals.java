package dev.toolgate.gate;

import dev.toolgate.audit.CallRecord;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The proposals this engine recorded recently, as it recorded them, so that applying one of them on
 * this instance can run apply's checks without reading the row back: a proposal's id, token digest,
 * tool, principal, payload, summary and execution id never change once it is stored. Never trusted for
 * a proposal's status or expiry: those can change on any instance (a rejection, an operator's edit, the
 * sweeper, the clock), and the single-use claim re-checks both by the store's clock; a claim that
 * fails reads the row to explain why. A proposal not found here (recorded elsewhere, evicted, or after
 * a restart) is read as before.
 *
 * <p>Bounded: at most {@value #MAX_ENTRIES} proposals and {@value #MAX_CHARS} characters of their
 * payloads, summaries and diffs; the oldest go first. An entry leaves when this engine claims, closes
 * or expires its proposal.
 */
final class KnownProposals {

    /** Proposals kept at most. */
    static final int MAX_ENTRIES = 10_000;
    /** Characters of payload, summary and diff kept at most, over every entry. */
    static final long MAX_CHARS = 4_000_000L;
    /** A proposal larger than this is not kept (it is read back at apply, as one from another instance). */
    static final int MAX_ENTRY_CHARS = 64 * 1024;

    private final LinkedHashMap<String, CallRecord> byId = new LinkedHashMap<>();
    private long chars;

    /** Keeps a proposal just recorded as pending (with its token digest), unless it is too large. */
    synchronized void remember(CallRecord proposal) {
        if (proposal.tokenDigest() == null || proposal.executionId() != null) {
            return;
        }
        long size = size(proposal);
        if (size > MAX_ENTRY_CHARS) {
            return;
        }
        CallRecord previous = byId.put(proposal.id(), proposal);
        if (previous != null) {
            chars -= size(previous);
        }
        chars += size;
        Iterator<Map.Entry<String, CallRecord>> oldest = byId.entrySet().iterator();
        while ((byId.size() > MAX_ENTRIES || chars > MAX_CHARS) && oldest.hasNext()) {
            chars -= size(oldest.next().getValue());
            oldest.remove();
        }
    }

    /** The proposal as this engine recorded it, or null if it does not know it. */
    synchronized CallRecord get(String id) {
        return id == null ? null : byId.get(id);
    }

    /** Drops a proposal this engine claimed, closed or expired (or that failed to apply). */
    synchronized void forget(String id) {
        if (id == null) {
            return;
        }
        CallRecord removed = byId.remove(id);
        if (removed != null) {
            chars -= size(removed);
        }
    }

    synchronized int size() {
        return byId.size();
    }

    private static long size(CallRecord r) {
        return length(r.payloadJson()) + length(r.summary()) + length(r.diffJson());
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }
}
