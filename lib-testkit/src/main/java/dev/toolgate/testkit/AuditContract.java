package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.tool.ToolValidationException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The audit trail and listeners: hashes not arguments, redacted capped results, metadata-only events. */
public interface AuditContract extends ContractCase {

    String MARKER = "s3cr3t-marker-42";

    @Test
    default void noRecordHoldsRawArgumentsOnlyAProposalHoldsItsPayload() {
        Toolgate gate = fx().gate();
        CallContext ctx = fx().ctx(fx().writer);
        gate.call(ctx, "notes.list", "{\"prefix\":\"" + MARKER + "\"}");
        assertThatThrownBy(() -> gate.call(ctx, "notes.add", "{\"id\":\"" + MARKER + "\",\"text\":\"forbidden\"}"))
                .isInstanceOf(ToolValidationException.class);
        Proposal proposal = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"n\",\"text\":\"" + MARKER + "\"}");

        for (CallRecord record : fx().records()) {
            String everythingButPayload = Fixture.fieldsOf(record, "payloadJson");
            assertThat(everythingButPayload).as(record.status().wireName()).doesNotContain(MARKER);
            if (!record.id().equals(proposal.callId())) {
                assertThat(record.payloadJson()).isNull();
            }
        }
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().payloadJson()).contains(MARKER);
    }

    @Test
    default void theArgumentsHashIgnoresKeyOrderAndWhitespaceButNotValues() {
        Toolgate gate = fx().gate();
        CallContext ctx = fx().ctx(fx().writer);
        Proposal a = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
        Proposal b = (Proposal) gate.call(ctx.withSession("other"), "notes.add", "{ \"text\" : \"x\",\n \"id\" : \"n1\" }");
        Proposal c = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"y\"}");

        String hashA = fx().store.calls().find(a.callId()).orElseThrow().argumentsHash();
        assertThat(hashA).matches("[0-9a-f]{64}");
        assertThat(fx().store.calls().find(b.callId()).orElseThrow().argumentsHash()).isEqualTo(hashA);
        assertThat(fx().store.calls().find(c.callId()).orElseThrow().argumentsHash()).isNotEqualTo(hashA);
    }

    @Test
    default void resultsAreRedactedAndStructurallyCappedWhenReturnedAndStored() {
        Toolgate gate = fx().gate(b -> b.resultLimitBytes(512));
        Executed executed = (Executed) gate.call(fx().ctx(fx().reader), "notes.leak", "{\"items\":500}");

        String returned = Json.write(executed.result());
        assertThat(returned).doesNotContain("sk-live-123").doesNotContain("hunter2").contains("visible");
        assertThat(returned.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(512);
        assertThat(executed.truncated()).isTrue();
        assertThat(executed.result().get(JsonTruncator.MARKER).asBoolean()).isTrue();
        CallRecord record = fx().store.calls().find(executed.callId()).orElseThrow();
        assertThat(Json.parse(record.resultJson())).isEqualTo(executed.result());
    }

    @Test
    default void listenersGetMetadataOnlyAndAFailingListenerNeverBreaksACall() {
        List<ToolCallEvent> events = new CopyOnWriteArrayList<>();
        Toolgate gate = fx().gate(b -> b.listener(e -> {
            throw new IllegalStateException("listener bug");
        }).listener(events::add));
        CallContext ctx = fx().ctx(fx().writer).withTransport("mcp");
        gate.call(ctx, "notes.list", "{\"prefix\":\"" + MARKER + "\"}");
        Proposal proposal = (Proposal) gate.call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"" + MARKER + "\"}");
        gate.apply(ctx, proposal.token());

        assertThat(events).extracting(ToolCallEvent::status)
                .containsExactly(CallStatus.EXECUTED, CallStatus.PROPOSED, CallStatus.APPLIED);
        assertThat(events).allSatisfy(e -> {
            assertThat(e.transport()).isEqualTo("mcp");
            assertThat(e.principal().key()).isEqualTo("user:writer");
            assertThat(e.toString()).doesNotContain(MARKER).doesNotContain("added n1").doesNotContain(proposal.token());
        });
        // metadata only: adding a component here needs a reason it cannot carry contents
        assertThat(ToolCallEvent.class.getRecordComponents()).extracting(c -> c.getName())
                .containsExactly("callId", "toolName", "effect", "status", "principal", "tenantId", "transport", "duration",
                        "sessionId", "mode", "modeSource", "proposedAt");
        assertThat(fx().notes.snapshot()).containsKey("n1");
    }
}
