package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Tool code that throws a {@link java.lang.Error} (a stack overflow, a failed assertion, a missing
 * class, memory) after its call was admitted: the call is still recorded as failed, and the listeners
 * told, before the error propagates unchanged.
 */
public interface FailureContract extends ContractCase {

    List<String> KINDS = List.of("stack_overflow", "assertion", "linkage", "out_of_memory");

    private String crash(String kind, String phase) {
        return "{\"kind\":\"" + kind + "\",\"phase\":\"" + phase + "\"}";
    }

    private CallRecord only(CallStatus status) {
        List<CallRecord> records = fx().records().stream().filter(r -> r.status() == status).toList();
        assertThat(records).as("records in status %s", status).hasSize(1);
        return records.get(0);
    }

    @Test
    default void anErrorThrownByAReadIsRecordedAsFailedBeforeItPropagates() {
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        Toolgate gate = fx().gateWith(events::add);
        for (String kind : KINDS) {
            Throwable thrown = catchThrowable(() -> gate.call(fx().ctx(fx().reader), "notes.crash", crash(kind, "execute")));
            assertThat(thrown).as(kind).isInstanceOf(Error.class).hasSameClassAs(Notes.error(kind));
        }
        List<CallRecord> failed = fx().records().stream().filter(r -> r.toolName().equals("notes.crash")).toList();
        assertThat(failed).hasSize(KINDS.size()).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(CallStatus.FAILED);
            assertThat(r.completedAt()).isNotNull();
        });
        assertThat(failed).extracting(CallRecord::error).anySatisfy(e -> assertThat(e).startsWith("StackOverflowError"))
                .anySatisfy(e -> assertThat(e).startsWith("AssertionError"))
                .anySatisfy(e -> assertThat(e).startsWith("NoClassDefFoundError"))
                .anySatisfy(e -> assertThat(e).startsWith("OutOfMemoryError"));
        assertThat(events).extracting(ToolCallEvent::status).containsOnly(CallStatus.FAILED).hasSize(KINDS.size());
        assertThat(fx().notes.reads).hasValue(KINDS.size());
        // the gate still serves
        assertThat(gate.call(fx().ctx(fx().reader), "notes.list", "{}").status()).isEqualTo("executed");
    }

    @Test
    default void anErrorInADryRunIsRecordedAndNothingIsProposed() {
        Throwable thrown = catchThrowable(() -> fx().gate().call(fx().ctx(fx().writer), "notes.brittle",
                crash("stack_overflow", "dry_run")));
        assertThat(thrown).isInstanceOf(StackOverflowError.class);
        CallRecord failed = only(CallStatus.FAILED);
        assertThat(failed.toolName()).isEqualTo("notes.brittle");
        assertThat(failed.tokenDigest()).isNull();
        assertThat(failed.error()).startsWith("StackOverflowError");
        assertThat(fx().gate().pending(fx().ctx(fx().approver), null)).isEmpty();
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void anErrorWhileApplyingIsRecordedAsFailedAndTheTokenIsSpent() {
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        Toolgate gate = fx().gateWith(events::add);
        CallContext ctx = fx().ctx(fx().writer);
        Proposal proposal = (Proposal) gate.call(ctx, "notes.brittle", crash("assertion", "execute"));

        Throwable thrown = catchThrowable(() -> gate.apply(ctx, proposal.token()));
        assertThat(thrown).isInstanceOf(AssertionError.class).hasMessage("simulated broken invariant");
        CallRecord record = fx().store.calls().find(proposal.callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.FAILED);
        assertThat(record.error()).startsWith("AssertionError");
        assertThat(record.completedAt()).isNotNull();
        assertThat(events).extracting(ToolCallEvent::status).containsExactly(CallStatus.PROPOSED, CallStatus.FAILED);
        assertThat(catchThrowable(() -> gate.apply(ctx, proposal.token()))).isInstanceOf(TokenAlreadyUsedException.class);
        assertThat(fx().notes.mutations).hasValue(1);
    }
}
