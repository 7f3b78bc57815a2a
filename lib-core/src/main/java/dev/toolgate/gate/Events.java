package dev.toolgate.gate;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells listeners about outcomes, and hands the approval notices they make to the notifiers; a failing
 * listener is logged and never breaks a call.
 */
final class Events {

    private static final Logger LOG = LoggerFactory.getLogger(Events.class);

    private final List<ToolCallListener> listeners;
    private final Notices notices;

    Events(List<ToolCallListener> listeners) {
        this(listeners, Notices.NONE);
    }

    Events(List<ToolCallListener> listeners, Notices notices) {
        this.listeners = List.copyOf(listeners);
        this.notices = notices;
    }

    void publish(CallRecord record, CallStatus status, PrincipalRef actor, long startNanos) {
        publish(record, status, actor, startNanos, true);
    }

    /**
     * {@link #publish(CallRecord, CallStatus, PrincipalRef, long)}; with {@code notice} false, no approval
     * notice (a proposal that policy applies at once awaits no one).
     */
    void publish(CallRecord record, CallStatus status, PrincipalRef actor, long startNanos, boolean notice) {
        if (notice) {
            notices.offer(record, status, actor);
        }
        if (!listeners.isEmpty()) {
            publish(record, status, actor, Duration.ofNanos(System.nanoTime() - startNanos));
        }
    }

    void publish(CallRecord record, CallStatus status, PrincipalRef actor, Duration duration) {
        if (listeners.isEmpty()) {
            return;
        }
        ToolCallEvent event = new ToolCallEvent(record.id(), record.toolName(), record.effect(), status, actor,
                record.tenantId(), record.transport(), duration);
        for (ToolCallListener listener : listeners) {
            try {
                listener.onCall(event);
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Tool call listener {} failed on {} {}; the call is unaffected", listener.getClass().getName(),
                        event.toolName(), status.wireName(), e);
            }
        }
    }
}
