package dev.toolgate.spi;

import dev.toolgate.json.Json;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The store cannot do what was asked: it cannot be reached, has no free connection in time, did not
 * answer in time, or refuses to write. The gate fails closed: a call whose admission or outcome cannot be
 * recorded does not run, and the caller gets this error.
 *
 * <p>{@link #fault()} says what kind of failure it is. A {@linkplain StoreFault#transientFault() transient}
 * one is {@linkplain #retryable() retryable} and carries a suggested delay ({@link #retryAfter()}); the
 * transports turn it into "the store is unavailable, try again in N s" (over MCP HTTP a 503 with
 * {@code Retry-After}). The others ({@link StoreFault#READ_ONLY}, {@link StoreFault#DISK_FULL},
 * {@link StoreFault#LOCKED}, {@link StoreFault#CORRUPT}) need an operator; {@link StoreFault#IN_DOUBT}
 * says a write's outcome is unknown, so the request must not simply be repeated.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The delay suggested for a transient fault when the store names none. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(2);

    private final StoreFault fault;
    private final Duration retryAfter;

    /** An unreachable store ({@link StoreFault#UNREACHABLE}), retryable after {@link #DEFAULT_RETRY_AFTER}. */
    public StoreUnavailableException(String message, Throwable cause) {
        this(message, cause, StoreFault.UNREACHABLE, DEFAULT_RETRY_AFTER);
    }

    /**
     * A store failure of kind {@code fault}; {@code retryAfter} is the suggested delay for a transient
     * fault (null: {@link #DEFAULT_RETRY_AFTER}) and is ignored for the others.
     */
    public StoreUnavailableException(String message, Throwable cause, StoreFault fault, Duration retryAfter) {
        super(message, cause);
        this.fault = Objects.requireNonNull(fault, "fault");
        if (!fault.transientFault()) {
            this.retryAfter = null;
        } else if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            this.retryAfter = DEFAULT_RETRY_AFTER;
        } else {
            this.retryAfter = retryAfter;
        }
    }

    /** What kind of failure this is. */
    public StoreFault fault() {
        return fault;
    }

    /** True if the same request may succeed after {@link #retryAfter()} without an operator. */
    public boolean retryable() {
        return retryAfter != null;
    }

    /** The suggested delay before retrying; empty when retrying will not help ({@link #retryable()} false). */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** {@link #retryAfter()} rounded up to whole seconds, at least 1, as for HTTP {@code Retry-After}; 0 if not retryable. */
    public long retryAfterSeconds() {
        if (retryAfter == null) {
            return 0;
        }
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }

    /**
     * What a model or a client may be told, without any database detail: that the store is unavailable
     * and when to try again, or that an operator must act, or that the outcome is in doubt.
     */
    public String advice() {
        return switch (fault) {
            case IN_DOUBT -> "The tool store lost its database connection while recording this call: its outcome is "
                    + "in doubt and an operator will resolve it. Do not repeat the call.";
            case READ_ONLY -> "The tool store's database accepts only reads right now; an operator must act. "
                    + "Tell the user the tools are unavailable.";
            case DISK_FULL -> "The tool store's database has no space left; an operator must act. "
                    + "Tell the user the tools are unavailable.";
            case LOCKED, CORRUPT -> "The tool store's database cannot be opened; an operator must act. "
                    + "Tell the user the tools are unavailable.";
            default -> "The tool store is temporarily unavailable; nothing was done. Try again in "
                    + retryAfterSeconds() + " s.";
        };
    }

    /**
     * The answer a model is given for this failure, the same in every adapter and transport that
     * answers with a result: {@code status "unavailable"}, {@code kind "store"}, the {@code fault},
     * whether retrying helps and, if so, {@code retryAfterSeconds}, and {@link #advice()} as the message.
     */
    public ObjectNode toJson() {
        ObjectNode json = Json.object();
        json.put("status", "unavailable");
        json.put("kind", "store");
        json.put("fault", fault.name());
        json.put("retryable", retryable());
        if (retryable()) {
            json.put("retryAfterSeconds", retryAfterSeconds());
        }
        json.put("message", advice());
        return json;
    }
}
