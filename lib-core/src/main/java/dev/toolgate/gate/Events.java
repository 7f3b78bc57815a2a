package dev.toolgate.gate;

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

/** Tells listeners about outcomes; a failing listener is logged and never breaks a call. */
final class Events {

    private static final Logger LOG = LoggerFactory.getLogger(Events.class);

    private final List<ToolCallListener> listeners;

    Events(List<ToolCallListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    void publish(CallRecord record, CallStatus status, PrincipalRef actor, long startNanos) {
        if (!listeners.isEmpty()) {
            publish(record, status, actor, Duration.ofNanos(System.nanoTime() - startNanos));
        }
    }

    void publish(CallRecord record, CallStatus status, PrincipalRef actor, Duration duration) {
        publish(record, status, actor, duration, null);
    }

    /** An outcome that decides on a proposal made at {@code proposedAt} (null: none waited). */
    void publishDecision(CallRecord record, CallStatus status, PrincipalRef actor, long startNanos, Instant proposedAt) {
        if (!listeners.isEmpty()) {
            publish(record, status, actor, Duration.ofNanos(System.nanoTime() - startNanos), proposedAt);
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
