package dev.toolgate.audit;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A filter over the audit trail. Null fields do not filter.
 *
 * <p><b>Order.</b> Results come newest first: by {@link CallRecord#createdAt()} descending, then by
 * {@link CallRecord#id()} ascending (ties broken by id, so the order is total). The one exception is
 * a query for the steps of one durable execution ({@link #execution}), which come in step order, first
 * first.
 *
 * <p><b>Paging.</b> To page through the newest-first order, pass the {@link Cursor} of the last record
 * of one page to {@link #after} for the next: the next page holds the records that come strictly after
 * it in that order ({@code createdAt} earlier, or the same {@code createdAt} and a greater id). Paging so
 * with a fixed filter visits every record exactly once, even when many share one {@code createdAt}
 * (records added meanwhile with a newer time are not visited). A cursor applies only to the
 * newest-first order: combined with {@link #execution} it is refused.
 *
 * @param tenantId     only this tenant
 * @param sessionId    only this session
 * @param principalKey only calls made by this principal ({@code <kind>:<id>}); without a kind prefix
 *                     ({@code user:}, {@code application:}, {@code service:}), by a principal of that id
 *                     of any kind ({@code carol} finds {@code user:carol} and {@code application:carol}):
 *                     see {@link #principalKeys()}
 * @param toolName     only this tool
 * @param status       only this status
 * @param executionId  only the steps of this durable execution (then ordered by step, first first)
 * @param from         only calls created at or after this instant (inclusive), between {@link #MIN_TIME}
 *                     and {@link #MAX_TIME}
 * @param until        only calls created before this instant (exclusive), between {@link #MIN_TIME} and
 *                     {@link #MAX_TIME}; not before {@code from}
 * @param after        only calls that come after this cursor in the newest-first order; not with
 *                     {@code executionId}
 * @param limit        at most this many records, 1 to 10,000
 */
public record CallQuery(String tenantId, String sessionId, String principalKey, String toolName, CallStatus status,
                        String executionId, Instant from, Instant until, Cursor after, int limit) {

    /** Most records one query returns. */
    public static final int MAX_LIMIT = 10_000;
    /** The earliest {@code from} or {@code until} a query accepts (every store can compare it). */
    public static final Instant MIN_TIME = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest {@code from} or {@code until} a query accepts (every store can compare it). */
    public static final Instant MAX_TIME = Instant.parse("9999-12-31T23:59:59.999999999Z");

    /** Checks the components; see the class description for what each must hold. */
    public CallQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", got " + limit);
        }
        inRange(from, "from");
        inRange(until, "until");
        if (from != null && until != null && from.isAfter(until)) {
            throw new IllegalArgumentException("from (" + from + ") must not be after until (" + until + ")");
        }
        if (after != null && executionId != null) {
            throw new IllegalArgumentException("a cursor pages the newest-first order; the steps of an execution "
                    + "come in step order and take no cursor");
        }
    }

    /**
     * The filter before time bounds and paging existed: no {@code from}, {@code until} or cursor.
     *
     * @param tenantId     only this tenant
     * @param sessionId    only this session
     * @param principalKey only calls made by this principal
     * @param toolName     only this tool
     * @param status       only this status
     * @param executionId  only the steps of this durable execution
     * @param limit        at most this many records, 1 to 10,000
     */
    public CallQuery(String tenantId, String sessionId, String principalKey, String toolName, CallStatus status,
                     String executionId, int limit) {
        this(tenantId, sessionId, principalKey, toolName, status, executionId, null, null, null, limit);
    }

    private static void inRange(Instant t, String name) {
        if (t != null && (t.isBefore(MIN_TIME) || t.isAfter(MAX_TIME))) {
            throw new IllegalArgumentException(name + " must be between " + MIN_TIME + " and " + MAX_TIME + ", got " + t);
        }
    }

    /** Everything, newest first, up to {@code limit}. */
    public static CallQuery latest(int limit) {
        return new CallQuery(null, null, null, null, null, null, null, null, null, limit);
    }

    /** Only calls of this tenant. */
    public CallQuery tenant(String v) {
        return new CallQuery(v, sessionId, principalKey, toolName, status, executionId, from, until, after, limit);
    }

    /** Only calls of this session. */
    public CallQuery session(String v) {
        return new CallQuery(tenantId, v, principalKey, toolName, status, executionId, from, until, after, limit);
    }

    /**
     * Only calls made by this principal key ({@code <kind>:<id>}), or, given an id without a kind prefix,
     * by a principal of that id of any kind.
     */
    public CallQuery principal(String v) {
        return new CallQuery(tenantId, sessionId, v, toolName, status, executionId, from, until, after, limit);
    }

    /** Only calls of this tool. */
    public CallQuery tool(String v) {
        return new CallQuery(tenantId, sessionId, principalKey, v, status, executionId, from, until, after, limit);
    }

    /** Only calls in this status. */
    public CallQuery status(CallStatus v) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, v, executionId, from, until, after, limit);
    }

    /**
     * Only the steps of this durable execution, ordered by step.
     *
     * @throws IllegalArgumentException if this query has a cursor ({@link #after})
     */
    public CallQuery execution(String v) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, status, v, from, until, after, limit);
    }

    /**
     * Only calls created at or after {@code v} (inclusive); null removes the bound.
     *
     * @throws IllegalArgumentException if {@code v} is after {@link #until}, or outside {@link #MIN_TIME}
     *                                  to {@link #MAX_TIME}
     */
    public CallQuery from(Instant v) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, status, executionId, v, until, after, limit);
    }

    /**
     * Only calls created before {@code v} (exclusive); null removes the bound.
     *
     * @throws IllegalArgumentException if {@code v} is before {@link #from}, or outside {@link #MIN_TIME}
     *                                  to {@link #MAX_TIME}
     */
    public CallQuery until(Instant v) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, status, executionId, from, v, after, limit);
    }

    /**
     * Only calls that come strictly after {@code cursor} in the newest-first order (the next page);
     * null removes the cursor.
     *
     * @throws IllegalArgumentException if this query is for the steps of an execution ({@link #execution})
     */
    public CallQuery after(Cursor cursor) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, status, executionId, from, until, cursor, limit);
    }

    /** The same filter with another limit. */
    public CallQuery limit(int v) {
        return new CallQuery(tenantId, sessionId, principalKey, toolName, status, executionId, from, until, after, v);
    }

    /**
     * True if {@code record} passes every set filter, the time bounds and the cursor (ids compared as
     * {@link String#compareTo}). A record without a creation time fails any time bound or cursor.
     */
    public boolean matches(CallRecord record) {
        return (tenantId == null || tenantId.equals(record.tenantId()))
                && (sessionId == null || sessionId.equals(record.sessionId()))
                && (principalKey == null || principalKey.equals(record.principal().key())
                        || !hasKind(principalKey) && principalKey.equals(record.principal().id()))
                && (toolName == null || toolName.equals(record.toolName()))
                && (status == null || status == record.status())
                && (executionId == null || executionId.equals(record.executionId()))
                && (from == null || record.createdAt() != null && !record.createdAt().isBefore(from))
                && (until == null || record.createdAt() != null && record.createdAt().isBefore(until))
                && (after == null || after.precedes(record));
    }

    /**
     * The principal keys the principal filter matches, which every store compares the stored key with:
     * {@code principalKey} itself when it starts with a kind's lower-case name and a colon (for example
     * {@code user:carol}); otherwise the id under every kind ({@code carol} gives {@code user:carol},
     * {@code application:carol} and {@code service:carol}). Empty without a principal filter.
     */
    public List<String> principalKeys() {
        if (principalKey == null) {
            return List.of();
        }
        if (hasKind(principalKey)) {
            return List.of(principalKey);
        }
        List<String> keys = new ArrayList<>();
        for (PrincipalKind kind : PrincipalKind.values()) {
            keys.add(new PrincipalRef(kind, principalKey).key());
        }
        return List.copyOf(keys);
    }

    /** The key prefixes of the principal kinds: {@code user:}, {@code application:}, {@code service:}. */
    private static final List<String> KIND_PREFIXES = java.util.Arrays.stream(PrincipalKind.values())
            .map(k -> k.name().toLowerCase(Locale.ROOT) + ":").toList();

    private static boolean hasKind(String key) {
        for (String prefix : KIND_PREFIXES) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "CallQuery[tenant=" + tenantId + ", session=" + sessionId + ", principal=" + principalKey + ", tool="
                + toolName + ", status=" + status + ", execution=" + executionId + ", from=" + from + ", until=" + until
                + ", after=" + after + ", limit=" + limit + "]";
    }

    /**
     * A position in the newest-first order: the creation time and id of the last record of a page.
     * {@link #encode()} gives it as opaque, URL-safe text for a client to send back; {@link #decode}
     * reads it.
     *
     * @param createdAt the record's creation time, from {@link Instant#EPOCH} to {@link CallQuery#MAX_TIME}
     * @param id        the record's id, 1 to {@value #MAX_ID_LENGTH} characters
     */
    public record Cursor(Instant createdAt, String id) {

        /** The longest id a cursor holds. */
        public static final int MAX_ID_LENGTH = 256;
        /** The longest text {@link #decode} reads. */
        private static final int MAX_ENCODED_LENGTH = 4 * ((20 + 1 + 9 + 1 + MAX_ID_LENGTH * 4 + 2) / 3) + 4;

        /** Checks the components; see the class description for what each must hold. */
        public Cursor {
            Objects.requireNonNull(createdAt, "createdAt");
            Objects.requireNonNull(id, "id");
            if (createdAt.isBefore(Instant.EPOCH) || createdAt.isAfter(MAX_TIME)) {
                throw new IllegalArgumentException("a cursor's time must be between " + Instant.EPOCH + " and " + MAX_TIME
                        + ", got " + createdAt);
            }
            if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
                throw new IllegalArgumentException("a cursor's id must be 1 to " + MAX_ID_LENGTH + " characters, got "
                        + id.length());
            }
        }

        /**
         * The position of a stored record.
         *
         * @throws IllegalArgumentException if the record has no creation time (it was never stored)
         */
        public static Cursor of(CallRecord record) {
            Objects.requireNonNull(record, "record");
            if (record.createdAt() == null) {
                throw new IllegalArgumentException("call " + record.id() + " has no creation time; only stored records have a cursor");
            }
            return new Cursor(record.createdAt(), record.id());
        }

        /** True if {@code record} comes strictly after this position in the newest-first order. */
        boolean precedes(CallRecord record) {
            Instant t = record.createdAt();
            return t != null && (t.isBefore(createdAt) || t.equals(createdAt) && record.id().compareTo(id) > 0);
        }

        /** Opaque, URL-safe text (base64url without padding) that {@link #decode} reads back. */
        public String encode() {
            String plain = createdAt.getEpochSecond() + "." + createdAt.getNano() + "." + id;
            return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * Reads what {@link #encode()} wrote.
         *
         * @throws IllegalArgumentException if {@code text} is null, empty, too long, or not a cursor
         */
        public static Cursor decode(String text) {
            if (text == null || text.isEmpty()) {
                throw invalid("it is empty");
            }
            if (text.length() > MAX_ENCODED_LENGTH) {
                throw invalid("it is longer than " + MAX_ENCODED_LENGTH + " characters");
            }
            byte[] bytes;
            try {
                bytes = Base64.getUrlDecoder().decode(text);
            } catch (IllegalArgumentException e) {
                throw invalid("it is not base64url text");
            }
            String plain;
            try {
                plain = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw invalid("it is not UTF-8 inside");
            }
            String[] parts = plain.split("\\.", 3);
            if (parts.length != 3) {
                throw invalid("it does not have a time and an id");
            }
            long seconds = number(parts[0], 12, "seconds");
            long nanos = number(parts[1], 9, "nanoseconds");
            Instant createdAt = Instant.ofEpochSecond(seconds, nanos);
            if (createdAt.isAfter(MAX_TIME)) {
                throw invalid("its time is after " + MAX_TIME);
            }
            if (parts[2].isEmpty() || parts[2].length() > MAX_ID_LENGTH) {
                throw invalid("its id is empty or longer than " + MAX_ID_LENGTH + " characters");
            }
            return new Cursor(createdAt, parts[2]);
        }

        /** A non-negative decimal of at most {@code maxDigits} digits. */
        private static long number(String digits, int maxDigits, String what) {
            if (digits.isEmpty() || digits.length() > maxDigits) {
                throw invalid("its " + what + " are not 1 to " + maxDigits + " digits");
            }
            for (int i = 0; i < digits.length(); i++) {
                char c = digits.charAt(i);
                if (c < '0' || c > '9') {
                    throw invalid("its " + what + " are not a non-negative decimal number");
                }
            }
            return Long.parseLong(digits);
        }

        private static IllegalArgumentException invalid(String why) {
            return new IllegalArgumentException("not a valid audit cursor: " + why
                    + " (pass back the text a previous page gave as its cursor)");
        }

        @Override
        public String toString() {
            return "Cursor[" + createdAt + ", " + id + "]";
        }
    }
}
