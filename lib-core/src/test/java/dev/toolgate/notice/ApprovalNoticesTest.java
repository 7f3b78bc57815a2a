package dev.toolgate.notice;

import static dev.toolgate.notice.Fixture.args;
import static dev.toolgate.notice.Fixture.boss;
import static dev.toolgate.notice.Fixture.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.Proposal;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gate's approval notices: what makes one, what it carries, and that notifiers stay off the call path. */
class ApprovalNoticesTest {

    @Test
    void aProposalAwaitsThenIsApprovedRejectedOrEdited() throws Exception {
        Fixture fixture = new Fixture();
        Fixture.Recording notifier = new Fixture.Recording();
        try (Toolgate gate = fixture.builder().notifier(notifier).build()) {
            Proposal first = (Proposal) gate.call(user(), "t.touch", args(Fixture.ARGUMENT));
            ApprovalNotice awaiting = notifier.next();
            assertThat(awaiting.kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            assertThat(awaiting.callId()).isEqualTo(first.callId());
            assertThat(awaiting.toolName()).isEqualTo("t.touch");
            assertThat(awaiting.effect()).isEqualTo(Effect.MUTATE);
            assertThat(awaiting.summary()).isEqualTo(Fixture.SUMMARY);
            assertThat(awaiting.proposer()).isEqualTo(PrincipalRef.of(Fixture.USER));
            assertThat(awaiting.tenantId()).isEqualTo("acme");
            assertThat(awaiting.sessionId()).isEqualTo("s-1");
            assertThat(awaiting.expiresAt()).isEqualTo(first.expiresAt());
            assertThat(awaiting.decidedBy()).isNull();
            assertThat(awaiting.isStep()).isFalse();

            assertThat(gate.approve(boss(), first.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
            ApprovalNotice applied = notifier.next();
            assertThat(applied.kind()).isEqualTo(NoticeKind.APPLIED);
            assertThat(applied.callId()).isEqualTo(first.callId());
            assertThat(applied.decidedBy()).isEqualTo(PrincipalRef.of(Fixture.BOSS));

            Proposal second = (Proposal) gate.call(user(), "t.touch", args("two"));
            assertThat(notifier.next().kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            gate.reject(boss(), second.callId(), "no");
            ApprovalNotice rejected = notifier.next();
            assertThat(rejected.kind()).isEqualTo(NoticeKind.REJECTED);
            assertThat(rejected.callId()).isEqualTo(second.callId());
            assertThat(rejected.decidedBy()).isEqualTo(PrincipalRef.of(Fixture.BOSS));

            Proposal third = (Proposal) gate.call(user(), "t.touch", args("three"));
            assertThat(notifier.next().kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            InboxResult.Edited edited = (InboxResult.Edited) gate.edit(boss(), third.callId(), args(Fixture.EDITED_ARGUMENT));
            List<ApprovalNotice> afterEdit = notifier.next(2);
            assertThat(afterEdit.get(0).kind()).isEqualTo(NoticeKind.SUPERSEDED);
            assertThat(afterEdit.get(0).callId()).isEqualTo(third.callId());
            assertThat(afterEdit.get(0).decidedBy()).isEqualTo(PrincipalRef.of(Fixture.BOSS));
            assertThat(afterEdit.get(1).kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            assertThat(afterEdit.get(1).callId()).isEqualTo(((Proposal) edited.replacement()).callId());
            assertThat(afterEdit.get(1).supersedes()).isEqualTo(third.callId());

            // a token apply is a decision too
            Proposal fourth = (Proposal) gate.call(user(), "t.touch", args("four"));
            assertThat(notifier.next().kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            gate.apply(boss(), fourth.token());
            ApprovalNotice tokenApplied = notifier.next();
            assertThat(tokenApplied.kind()).isEqualTo(NoticeKind.APPLIED);
            assertThat(tokenApplied.decidedBy()).isEqualTo(PrincipalRef.of(Fixture.BOSS));
        }
    }

    @Test
    void readsAndProposalsThatPolicyAppliesAtOnceMakeNoNotice() throws Exception {
        Fixture fixture = new Fixture();
        Fixture.Recording notifier = new Fixture.Recording();
        try (Toolgate gate = fixture.builder().notifier(notifier).build()) {
            gate.call(user(), "t.read", args("r"));
            CallResult auto = gate.call(user().withPermissionMode(PermissionMode.AUTO), "t.touch", args("auto"));
            assertThat(auto).isNotInstanceOf(Proposal.class);
            Proposal waiting = (Proposal) gate.call(user(), "t.touch", args("wait"));
            // one lane delivers in order: had the read or the auto-applied call made a notice, it would come first
            ApprovalNotice first = notifier.next();
            assertThat(first.callId()).isEqualTo(waiting.callId());
            assertThat(first.kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
        }
    }

    @Test
    void anExpiredProposalIsNoticedByTheSweep() throws Exception {
        Fixture fixture = new Fixture();
        Fixture.Recording notifier = new Fixture.Recording();
        java.util.List<dev.toolgate.audit.ToolCallEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Toolgate gate = fixture.builder().notifier(notifier).listener(events::add)
                .proposalTtl(Duration.ofMinutes(5)).build()) {
            Proposal proposal = (Proposal) gate.call(user(), "t.touch", args("late"));
            Proposal kept = (Proposal) gate.call(user(), "t.touch", args("kept"));
            assertThat(notifier.next(2)).extracting(ApprovalNotice::kind).containsOnly(NoticeKind.AWAITING_DECISION);
            fixture.clock.advance(Duration.ofMinutes(6));
            gate.approve(boss(), kept.callId(), Approval.once()); // expired, not applied: no notice
            assertThat(gate.sweep().expired()).isEqualTo(2);
            List<ApprovalNotice> expired = notifier.next(2);
            assertThat(expired).extracting(ApprovalNotice::kind).containsOnly(NoticeKind.EXPIRED);
            assertThat(expired).extracting(ApprovalNotice::callId).containsExactlyInAnyOrder(proposal.callId(), kept.callId());
            assertThat(expired.get(0).decidedBy()).isNull();
            assertThat(events).filteredOn(e -> e.status() == dev.toolgate.audit.CallStatus.EXPIRED)
                    .as("listeners hear each expiry once, with the time it was proposed")
                    .extracting(dev.toolgate.audit.ToolCallEvent::callId)
                    .containsExactlyInAnyOrder(proposal.callId(), kept.callId());
            assertThat(events).filteredOn(e -> e.status() == dev.toolgate.audit.CallStatus.EXPIRED)
                    .allSatisfy(e -> assertThat(e.proposedAt()).isNotNull());
            assertThat(gate.sweep().expired()).isZero();
            gate.call(user(), "t.touch", args("after"));
            assertThat(notifier.next().kind()).isEqualTo(NoticeKind.AWAITING_DECISION); // no second expiry notice
        }
    }

    @Test
    void aPausedRunsStepAwaitsAndIsApprovedOrExpires() throws Exception {
        Fixture fixture = new Fixture();
        Fixture.Recording notifier = new Fixture.Recording();
        try (Toolgate gate = fixture.builder().notifier(notifier).build()) {
            ExecutionOutcome paused = gate.executions().start(user(), "t.flow", (String) null);
            assertThat(paused).isInstanceOf(ExecutionOutcome.Paused.class);
            ApprovalNotice awaiting = notifier.next();
            assertThat(awaiting.kind()).isEqualTo(NoticeKind.AWAITING_DECISION);
            assertThat(awaiting.isStep()).isTrue();
            assertThat(awaiting.executionId()).isEqualTo(paused.executionId());
            assertThat(awaiting.stepSeq()).isEqualTo(2);
            assertThat(awaiting.toolName()).isEqualTo("t.touch");

            assertThat(gate.executions().approve(boss(), paused.executionId(), 2)).isInstanceOf(ExecutionOutcome.Completed.class);
            ApprovalNotice applied = notifier.next();
            assertThat(applied.kind()).isEqualTo(NoticeKind.APPLIED);
            assertThat(applied.executionId()).isEqualTo(paused.executionId());
            assertThat(applied.stepSeq()).isEqualTo(2);
            assertThat(applied.decidedBy()).isEqualTo(PrincipalRef.of(Fixture.BOSS));

            ExecutionOutcome again = gate.executions().start(user(), "t.flow", (String) null);
            assertThat(notifier.next().executionId()).isEqualTo(again.executionId());
            assertThat(gate.executions().reject(boss(), again.executionId(), 2, "not today")).isTrue();
            ApprovalNotice rejected = notifier.next();
            assertThat(rejected.kind()).isEqualTo(NoticeKind.REJECTED);
            assertThat(rejected.executionId()).isEqualTo(again.executionId());

            ExecutionOutcome third = gate.executions().start(user(), "t.flow", (String) null);
            assertThat(notifier.next().executionId()).isEqualTo(third.executionId());
            fixture.clock.advance(Duration.ofDays(2));
            gate.sweep();
            ApprovalNotice expired = notifier.next();
            assertThat(expired.kind()).isEqualTo(NoticeKind.EXPIRED);
            assertThat(expired.executionId()).isEqualTo(third.executionId());
            assertThat(expired.stepSeq()).isEqualTo(2);
        }
    }

    @Test
    void aThrowingNotifierFailsNoCallAndOthersStillHear() throws Exception {
        Fixture fixture = new Fixture();
        AtomicInteger thrown = new AtomicInteger();
        ApprovalNotifier throwing = notice -> {
            thrown.incrementAndGet();
            throw new IllegalStateException("notifier down");
        };
        ApprovalNotifier erroring = notice -> {
            throw new AssertionError("an error, not an exception");
        };
        Fixture.Recording recording = new Fixture.Recording();
        try (Toolgate gate = fixture.builder().notifier(throwing).notifier(erroring).notifier(recording).build()) {
            Proposal one = (Proposal) gate.call(user(), "t.touch", args("one"));
            Proposal two = (Proposal) gate.call(user(), "t.touch", args("two"));
            assertThat(gate.approve(boss(), one.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
            assertThat(recording.next(3)).extracting(ApprovalNotice::callId)
                    .containsExactly(one.callId(), two.callId(), one.callId());
            // each notifier has its own lane (thread): the recording one may have heard all three before
            // the throwing one ran at all, so wait for it (bounded) rather than read it once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (thrown.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(thrown.get()).as("notices the throwing notifier was given").isEqualTo(3);
        }
    }

    @Test
    void aHangingNotifierDoesNotHoldTheCall() throws Exception {
        Fixture fixture = new Fixture();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ApprovalNotifier hanging = notice -> {
            entered.countDown();
            release.await();
        };
        try (Toolgate gate = fixture.builder().notifier(hanging).build()) {
            gate.call(user(), "t.touch", args("one"));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            // the notifier holds its first notice; the gate still answers every call
            Proposal two = (Proposal) gate.call(user(), "t.touch", args("two"));
            assertThat(gate.approve(boss(), two.callId(), Approval.once())).isInstanceOf(InboxResult.Approved.class);
            assertThat(release.getCount()).isEqualTo(1);
            release.countDown();
        }
    }

    @Test
    void aFullQueueDropsAndCountsWithoutBlocking() throws Exception {
        Fixture fixture = new Fixture();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger dropped = new AtomicInteger();
        Fixture.Recording delivered = new Fixture.Recording();
        ApprovalNotifier slow = new ApprovalNotifier() {
            @Override
            public void onNotice(ApprovalNotice notice) throws InterruptedException {
                entered.countDown();
                release.await();
                delivered.onNotice(notice);
            }

            @Override
            public void dropped(ApprovalNotice notice) {
                dropped.incrementAndGet();
            }
        };
        try (Toolgate gate = fixture.builder().notifier(slow).noticeQueueCapacity(1).build()) {
            Proposal first = (Proposal) gate.call(user(), "t.touch", args("1"));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue(); // the lane's thread holds the first notice
            Proposal queued = (Proposal) gate.call(user(), "t.touch", args("2"));
            gate.call(user(), "t.touch", args("3"));
            gate.call(user(), "t.touch", args("4"));
            assertThat(dropped.get()).isEqualTo(2);
            release.countDown();
            assertThat(delivered.next(2)).extracting(ApprovalNotice::callId).containsExactly(first.callId(), queued.callId());
            Proposal later = (Proposal) gate.call(user(), "t.touch", args("5"));
            assertThat(delivered.next().callId()).isEqualTo(later.callId());
            assertThat(dropped.get()).isEqualTo(2);
        }
    }

    @Test
    void notifiersAreFoundThroughServiceLoader(@TempDir Path dir) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(ApprovalNotifier.class.getName()), Discovered.class.getName() + "\n");
        Discovered.notices.clear();
        Fixture fixture = new Fixture();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
             Toolgate gate = fixture.builder().discoverComponents(true).classLoader(loader).build()) {
            Proposal proposal = (Proposal) gate.call(user(), "t.touch", args("found"));
            ApprovalNotice notice = Discovered.notices.poll(10, TimeUnit.SECONDS);
            assertThat(notice).isNotNull();
            assertThat(notice.callId()).isEqualTo(proposal.callId());
        }
    }

    @Test
    void closingTheGateStopsItsNoticeThreads() throws Exception {
        Fixture fixture = new Fixture();
        java.util.concurrent.atomic.AtomicReference<Thread> lane = new java.util.concurrent.atomic.AtomicReference<>();
        Fixture.Recording notifier = new Fixture.Recording();
        Toolgate gate = fixture.builder().notifier(notice -> {
            lane.set(Thread.currentThread());
            notifier.onNotice(notice);
        }).build();
        gate.call(user(), "t.touch", args("x"));
        notifier.next();
        assertThat(lane.get().isDaemon()).isTrue();
        gate.close();
        lane.get().join(5_000); // an idle lane of an open gate would live on for 30 seconds
        assertThat(lane.get().isAlive()).isFalse();
    }

    /** A notifier listed in a service file. */
    public static final class Discovered implements ApprovalNotifier {
        static final java.util.concurrent.BlockingQueue<ApprovalNotice> notices = new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void onNotice(ApprovalNotice notice) {
            notices.add(notice);
        }
    }
}
