package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.call.Approval;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.notice.ApprovalNotice;
import dev.toolgate.notice.ApprovalNotifier;
import dev.toolgate.notice.NoticeKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Approval notices on every store: a proposal awaits, then is approved, rejected or expires (found by the sweep). */
public interface NoticeContract extends ContractCase {

    @Test
    default void approvalNoticesFollowEachProposalToItsDecisionOrExpiry() throws InterruptedException {
        BlockingQueue<ApprovalNotice> heard = new LinkedBlockingQueue<>();
        ApprovalNotifier notifier = heard::add;
        Toolgate gate = fx().gate(b -> b.notifier(notifier).proposalTtl(Duration.ofMinutes(10)));
        CallContext writer = fx().ctx(fx().writer);
        CallContext operator = fx().ctx(fx().approver);
        String text = "notice-contract-text-4e1d";
        Proposal approved = (Proposal) gate.call(writer, "notes.add", "{\"id\":\"a1\",\"text\":\"" + text + "\"}");
        gate.approve(operator, approved.callId(), Approval.once());
        Proposal rejected = (Proposal) gate.call(writer, "notes.add", "{\"id\":\"r1\",\"text\":\"" + text + "\"}");
        gate.reject(operator, rejected.callId(), "no");
        Proposal late = (Proposal) gate.call(writer, "notes.add", "{\"id\":\"l1\",\"text\":\"" + text + "\"}");
        fx().clock.advance(Duration.ofMinutes(11));
        assertThat(gate.sweep().expired()).isEqualTo(1);

        List<ApprovalNotice> notices = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ApprovalNotice notice = heard.poll(10, TimeUnit.SECONDS);
            assertThat(notice).as("notice %d of 6", i + 1).isNotNull();
            notices.add(notice);
        }
        assertThat(notices).extracting(n -> n.kind() + " " + n.callId()).containsExactly(
                NoticeKind.AWAITING_DECISION + " " + approved.callId(), NoticeKind.APPLIED + " " + approved.callId(),
                NoticeKind.AWAITING_DECISION + " " + rejected.callId(), NoticeKind.REJECTED + " " + rejected.callId(),
                NoticeKind.AWAITING_DECISION + " " + late.callId(), NoticeKind.EXPIRED + " " + late.callId());
        ApprovalNotice expired = notices.get(5);
        assertThat(expired.summary()).isEqualTo("Add note l1");
        assertThat(expired.proposer().key()).isEqualTo("user:writer");
        assertThat(expired.tenantId()).isEqualTo("acme");
        assertThat(expired.expiresAt()).isEqualTo(late.expiresAt());
        assertThat(notices.get(1).decidedBy().key()).isEqualTo("user:approver");
        assertThat(notices.get(3).decidedBy().key()).isEqualTo("user:approver");
        assertThat(notices).allSatisfy(n -> assertThat(n.toString()).doesNotContain(text)
                .doesNotContain(approved.token()).doesNotContain(rejected.token()).doesNotContain(late.token()));
        assertThat(heard.poll(50, TimeUnit.MILLISECONDS)).isNull();
    }
}
