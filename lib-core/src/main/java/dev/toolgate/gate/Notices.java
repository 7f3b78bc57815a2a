package dev.toolgate.gate;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.Redactor;
import dev.toolgate.notice.ApprovalNotice;
import dev.toolgate.notice.ApprovalNotifier;
import dev.toolgate.notice.NoticeKind;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands approval notices to the notifiers off the call path: one lane per notifier, each a bounded
 * queue drained by one daemon thread (started on the first notice, ended when idle), so a hanging
 * notifier holds up only its own lane. A full lane drops the notice (WARN, counted) and never blocks.
 */
final class Notices implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Notices.class);
    /** A notifier's failure is host code talking to the network (a webhook's URL and token): logged redacted. */
    private static final Redactor LOGGED = Redactor.defaults();
    private static final AtomicInteger LANES = new AtomicInteger();
    /** How long {@link #close} lets queued notices drain before interrupting the lanes. */
    private static final long CLOSE_GRACE_MILLIS = 1_000;

    static final Notices NONE = new Notices(List.of(), 1);

    private final List<Lane> lanes;

    Notices(List<ApprovalNotifier> notifiers, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the notice queue capacity must be at least 1, got " + capacity);
        }
        this.lanes = notifiers.stream().map(n -> new Lane(n, capacity)).toList();
    }

    /** The notice an outcome makes, if any, for every notifier; never throws, never blocks. */
    void offer(CallRecord record, CallStatus status, PrincipalRef actor) {
        if (lanes.isEmpty()) {
            return;
        }
        ApprovalNotice notice;
        try {
            notice = noticeOf(record, status, actor);
        } catch (RuntimeException e) {
            LOG.warn("No approval notice for call {}: {}", record.id(), e.toString());
            return;
        }
        if (notice == null) {
            return;
        }
        for (Lane lane : lanes) {
            lane.offer(notice);
        }
    }

    /**
     * What an outcome means for approvals: a proposal recorded awaits a decision; a claimed proposal
     * applied, a rejection, an edit and an expiry decide it. Anything else (reads, denials, failures,
     * reverts, resolutions of calls in doubt) makes no notice.
     */
    static ApprovalNotice noticeOf(CallRecord record, CallStatus status, PrincipalRef actor) {
        if (record.tokenDigest() == null && status != CallStatus.EXPIRED) {
            return null; // not a proposal
        }
        NoticeKind kind;
        PrincipalRef decidedBy = null;
        switch (status) {
            case PROPOSED -> kind = NoticeKind.AWAITING_DECISION;
            case APPLIED -> {
                if (record.status() != CallStatus.APPLYING) {
                    return null; // an operator's resolution of a call in doubt
                }
                kind = NoticeKind.APPLIED;
                decidedBy = record.decidedBy() != null ? record.decidedBy() : actor;
            }
            case REJECTED -> {
                kind = NoticeKind.REJECTED;
                decidedBy = actor;
            }
            case SUPERSEDED -> {
                kind = NoticeKind.SUPERSEDED;
                decidedBy = actor;
            }
            case EXPIRED -> kind = NoticeKind.EXPIRED;
            case STALE -> {
                kind = NoticeKind.STALE;
                decidedBy = actor;
            }
            default -> {
                return null;
            }
        }
        return new ApprovalNotice(kind, record.id(), record.toolName(), record.effect(), record.summary(),
                record.principal(), record.tenantId(), record.sessionId(), record.expiresAt(), record.executionId(),
                record.stepSeq(), decidedBy, record.supersedes(), Instant.now());
    }

    /** Stops the lanes: queued notices get a short grace to go out, then the lanes are interrupted. */
    @Override
    public void close() {
        lanes.forEach(lane -> lane.executor.shutdown());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MILLIS);
        for (Lane lane : lanes) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !lane.executor.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    int abandoned = lane.executor.shutdownNow().size();
                    if (abandoned > 0) {
                        LOG.warn("Closing: {} approval notice(s) for {} were not delivered", abandoned, lane.name);
                    }
                }
            } catch (InterruptedException e) {
                lane.executor.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One notifier's queue and thread. */
    private static final class Lane {
        private final ApprovalNotifier notifier;
        private final String name;
        private final ThreadPoolExecutor executor;
        private final AtomicLong dropped = new AtomicLong();

        Lane(ApprovalNotifier notifier, int capacity) {
            this.notifier = notifier;
            this.name = notifier.getClass().getName();
            String thread = "toolgate-notices-" + LANES.incrementAndGet();
            this.executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(capacity), task -> {
                Thread t = new Thread(task, thread);
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.AbortPolicy());
            executor.allowCoreThreadTimeOut(true);
        }

        void offer(ApprovalNotice notice) {
            try {
                executor.execute(() -> deliver(notice));
            } catch (RejectedExecutionException e) {
                if (executor.isShutdown()) {
                    LOG.debug("The gate is closed: approval notice {} {} not sent to {}", notice.kind().wireName(),
                            notice.callId(), name);
                    return;
                }
                long count = dropped.incrementAndGet();
                if (count == 1 || count % 100 == 0) {
                    LOG.warn("The approval notice queue of {} is full: dropped {} {} of {} ({} dropped so far)", name,
                            notice.kind().wireName(), notice.callId(), notice.toolName(), count);
                }
                try {
                    notifier.dropped(notice);
                } catch (RuntimeException | LinkageError ignored) {
                    // a counter that throws changes nothing for the call
                }
            }
        }

        private void deliver(ApprovalNotice notice) {
            try {
                notifier.onNotice(notice);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                if (e instanceof VirtualMachineError fatal && !(e instanceof StackOverflowError)) {
                    throw fatal;
                }
                LOG.warn("Approval notifier {} failed on {} {} of {}", name, notice.kind().wireName(), notice.callId(),
                        notice.toolName(), LOGGED.redactThrowable(e));
            }
        }
    }
}
