package dev.toolgate.notice;

/**
 * Hears about proposals and paused runs' steps that await a decision, and about their decision or
 * expiry, so that an unattended run reaches someone (a chat channel, a pager, a ticket).
 *
 * <p>The gate calls a notifier off the governed call's path: each registered notifier has its own
 * bounded queue and daemon thread, owned by the gate and stopped when it closes. A slow, hanging or
 * throwing notifier never delays or fails a call; while its queue is full, new notices for it are
 * dropped (logged at WARN, and reported to {@link #dropped}). Notices for one notifier arrive in the
 * order the gate saw them on one instance; with several instances, each instance notifies what it saw.
 * An expiry is notified once across all instances: by the sweeper that expired the proposal.
 *
 * <p>Register one with {@code Toolgate.builder().notifier(...)} (several are allowed) or in
 * {@code META-INF/services/dev.toolgate.notice.ApprovalNotifier}.
 */
@FunctionalInterface
public interface ApprovalNotifier {

    /**
     * Delivers one notice; runs on the notifier's own thread. An exception is logged and the next
     * notice is delivered as usual.
     */
    void onNotice(ApprovalNotice notice) throws Exception;

    /**
     * Told that {@code notice} was dropped because this notifier's queue was full. Called on the
     * governed call's thread: it must only count or flag, never block. Exceptions are ignored.
     */
    default void dropped(ApprovalNotice notice) {
    }
}
