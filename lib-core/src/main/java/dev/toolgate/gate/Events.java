package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.BudgetRefusal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.time.Instant;
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
        publish(record, status, actor, duration, null);
    }

    /**
     * An outcome that decides on a proposal made at {@code proposedAt} (null: none waited, such as a
     * proposal policy applied at once). A decision someone waited for is also an approval notice.
     */
    void publishDecision(CallRecord record, CallStatus status, PrincipalRef actor, long startNanos, Instant proposedAt) {
        if (proposedAt != null) {
            notices.offer(record, status, actor);
        }
        if (!listeners.isEmpty()) {
            publish(record, status, actor, Duration.ofNanos(System.nanoTime() - startNanos), proposedAt);
        }
    }

    /** A proposal the sweep expired: its notice, and its outcome for listeners (decided by the gate). */
    void publishExpired(CallRecord record, long startNanos) {
        notices.offer(record, CallStatus.EXPIRED, null);
        if (!listeners.isEmpty()) {
            publish(record, CallStatus.EXPIRED, Steps.SYSTEM, Duration.ofNanos(System.nanoTime() - startNanos),
                    record.createdAt());
        }
    }

    private void publish(CallRecord record, CallStatus status, PrincipalRef actor, Duration duration, Instant proposedAt) {
        if (listeners.isEmpty()) {
            return;
        }
        ToolCallEvent event = new ToolCallEvent(record.id(), record.toolName(), record.effect(), status, actor,
                record.tenantId(), record.transport(), duration, record.sessionId(), record.mode(), record.modeSource(),
                proposedAt);
        for (ToolCallListener listener : listeners) {
            try {
                listener.onCall(event);
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Tool call listener {} failed on {} {}; the call is unaffected", listener.getClass().getName(),
                        event.toolName(), status.wireName(), e);
            }
        }
    }

    /** Tells listeners that the budget refused a call of {@code tool}; nothing was recorded. */
    void refused(String tool, Effect effect, CallContext context, Mode mode, ModeSource modeSource, long startNanos) {
        if (listeners.isEmpty()) {
            return;
        }
        BudgetRefusal refusal = new BudgetRefusal(tool, effect, PrincipalRef.of(context.principal()), context.tenantId(),
                context.sessionId(), context.transport(), mode, modeSource, Duration.ofNanos(System.nanoTime() - startNanos));
        for (ToolCallListener listener : listeners) {
            try {
                listener.onBudgetRefused(refusal);
            } catch (RuntimeException | LinkageError e) {
                LOG.warn("Tool call listener {} failed on a budget refusal of {}; the call is unaffected",
                        listener.getClass().getName(), tool, e);
            }
        }
    }
}
