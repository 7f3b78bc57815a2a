package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.InvalidTokenException;
import dev.toolgate.call.SeparationOfDutiesException;
import dev.toolgate.call.InboxResult;
import dev.toolgate.call.MalformedTokenException;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Apply: single use, the stored payload only, re-checked authorization, distinct typed token errors. */
public interface ApplyContract extends ContractCase {

    private Proposal proposeNote(String id) {
        return (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"" + id + "\",\"text\":\"hello\"}");
    }

    @Test
    default void applyExecutesTheStoredPayloadOnceAndRecordsIt() {
        Proposal proposal = proposeNote("n1");
        Applied applied = fx().gate().apply(fx().ctx(fx().writer), proposal.token());

        assertThat(applied.status()).isEqualTo("applied");
        assertThat(applied.result().asString()).isEqualTo("added n1");
        assertThat(applied.summary()).isEqualTo("Add note n1");
        assertThat(applied.automatic()).isFalse();
        assertThat(fx().notes.snapshot()).containsEntry("n1", "hello");
        assertThat(fx().notes.mutations).hasValue(1);
        CallRecord record = fx().store.calls().find(proposal.callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.appliedBy().key()).isEqualTo("user:writer");
        assertThat(record.appliedAt()).isEqualTo(fx().clock.instant());
        assertThat(record.completedAt()).isNotNull();
        assertThat(record.resultJson()).isEqualTo("\"added n1\"");
    }

    @Test
    default void aDifferentApplierIsRecordedNotRejected() {
        Proposal proposal = proposeNote("n1");
        Applied applied = fx().gate().apply(fx().ctx(fx().admin), proposal.token());

        assertThat(applied.appliedBy().key()).isEqualTo("user:admin");
        CallRecord record = fx().store.calls().find(proposal.callId()).orElseThrow();
        assertThat(record.principal().key()).isEqualTo("user:writer");
        assertThat(record.appliedBy().key()).isEqualTo("user:admin");
    }

    @Test
    default void ofSixtyFourConcurrentAppliesExactlyOneWins() throws Exception {
        Proposal proposal = proposeNote("n1");
        int threads = 64;
        AtomicInteger winners = new AtomicInteger();
        List<Throwable> losers = new java.util.concurrent.CopyOnWriteArrayList<>();
        Together.run(threads, t -> {
            try {
                fx().gate().apply(fx().ctx(fx().writer), proposal.token());
                winners.incrementAndGet();
            } catch (RuntimeException e) {
                losers.add(e);
            }
            return null;
        });
        assertThat(winners).hasValue(1);
        assertThat(losers).hasSize(threads - 1).allSatisfy(e -> assertThat(e).isInstanceOf(TokenAlreadyUsedException.class));
        assertThat(fx().notes.mutations).hasValue(1);
    }

    @Test
    default void aReplayedTokenIsRefused() {
        Proposal proposal = proposeNote("n1");
        fx().gate().apply(fx().ctx(fx().writer), proposal.token());

        assertThatThrownBy(() -> fx().gate().apply(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOfSatisfying(TokenAlreadyUsedException.class, e -> assertThat(e.code()).isEqualTo("already_used"));
        assertThat(fx().notes.mutations).hasValue(1);
    }

    @Test
    default void badTokensFailWithDistinctTypedErrorsAndChangeNothing() {
        Proposal proposal = proposeNote("n1");
        String token = proposal.token();
        String nonce = token.substring(token.lastIndexOf('.') + 1);
        String forged = token.substring(0, token.lastIndexOf('.') + 1) + (nonce.charAt(0) == 'a' ? 'b' : 'a') + nonce.substring(1);
        String unknownId = "propose:" + UUID.randomUUID() + "." + nonce;
        CallContext ctx = fx().ctx(fx().writer);

        var errors = new ConcurrentHashMap<String, Class<?>>();
        for (String bad : List.of(forged, token.substring(0, token.length() - 1), "garbage", "", unknownId,
                token.replace("propose:", "apply:"), token + "00")) {
            assertThatThrownBy(() -> fx().gate().apply(ctx, bad)).as(bad)
                    .isInstanceOf(ProposeApplyException.class)
                    .satisfies(e -> errors.put(bad, e.getClass()));
        }
        assertThat(errors.get(forged)).isEqualTo(InvalidTokenException.class);
        assertThat(errors.get(unknownId)).isEqualTo(UnknownProposalException.class);
        assertThat(errors.get("garbage")).isEqualTo(MalformedTokenException.class);
        assertThat(errors.get("")).isEqualTo(MalformedTokenException.class);
        assertThat(errors.get(token.substring(0, token.length() - 1))).isEqualTo(MalformedTokenException.class);
        assertThat(errors.get(token + "00")).isEqualTo(MalformedTokenException.class);

        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().gate().apply(ctx, token).status()).isEqualTo("applied");
    }

    @Test
    default void anExpiredTokenIsRefusedWhetherOrNotTheSweeperRan() {
        Proposal first = proposeNote("n1");
        Proposal second = proposeNote("n2");
        fx().clock.advance(Duration.ofMinutes(10));

        assertThatThrownBy(() -> fx().gate().apply(fx().ctx(fx().writer), first.token()))
                .isInstanceOfSatisfying(TokenExpiredException.class, e -> assertThat(e.code()).isEqualTo("expired"));
        assertThat(fx().store.calls().find(first.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);

        assertThat(fx().gate().sweep().expired()).isEqualTo(2);
        assertThat(fx().store.calls().find(first.callId()).orElseThrow().status()).isEqualTo(CallStatus.EXPIRED);
        assertThatThrownBy(() -> fx().gate().apply(fx().ctx(fx().writer), second.token())).isInstanceOf(TokenExpiredException.class);
        assertThat(fx().gate().sweep().expired()).isZero();
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void aTokenIsValidUntilJustBeforeItsExpiry() {
        Proposal proposal = proposeNote("n1");
        fx().clock.advance(Duration.ofMinutes(10).minusMillis(1));
        assertThat(fx().gate().apply(fx().ctx(fx().writer), proposal.token()).status()).isEqualTo("applied");
    }

    @Test
    default void authorizationLostBetweenProposeAndApplyBlocksApplyNamingTheRule() {
        Proposal proposal = proposeNote("n1");
        CallContext demoted = fx().ctx(fx().writer.withAccessRules(Notes.READ));

        assertThatThrownBy(() -> fx().gate().apply(demoted, proposal.token()))
                .isInstanceOfSatisfying(ForbiddenException.class, e -> {
                    assertThat(e).hasMessage("Forbidden: notes.add (missing permission: notes.note.write)");
                    assertThat(e.missingRules()).containsExactly(Notes.WRITE);
                });
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);
    }

    /** Version 2 of notes.add requires a field version 1 payloads do not have. */
    record NoteV2(String id, String text, String author) {
    }

    @Test
    default void aStoredPayloadThatNoLongerMatchesAnEvolvedSchemaIsRefused() {
        Proposal proposal = proposeNote("n1");
        Toolgate gate = fx().gate();
        gate.registry().unregisterPlugin("notes");
        gate.registry().register(ToolProvider.of("notes", Tool.builder("add", NoteV2.class).description("Add a note")
                .effect(Effect.MUTATE).requires(Notes.WRITE).execute((in, ctx) -> "v2 ran").build()));

        assertThatThrownBy(() -> gate.apply(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOfSatisfying(StaleProposalException.class, e -> assertThat(e.issues())
                        .anySatisfy(i -> assertThat(i.path()).isEqualTo("/author")));
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
    }

    @Test
    default void applyRunsTheStoredPayloadNotTheModelsArguments() {
        Proposal proposal = (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"N1\",\"text\":\"approved\"}");
        assertThat(proposal.payload().get("id").asString()).as("normalized by the dry-run").isEqualTo("n1");
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().payloadJson()).contains("\"id\":\"n1\"");

        fx().gate().apply(fx().ctx(fx().writer), proposal.token());
        assertThat(fx().notes.snapshot()).containsExactly(java.util.Map.entry("n1", "approved"));
    }

    @Test
    default void inspectChecksATokenAsApplyDoesAndChangesNothing() {
        fx().notes.put("n1", "old");
        Proposal proposal = (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.purge", "{\"id\":\"n1\"}");

        var pending = fx().gate().inspect(fx().ctx(fx().writer), proposal.token());
        assertThat(pending.callId()).isEqualTo(proposal.callId());
        assertThat(pending.effect()).isEqualTo(Effect.DESTRUCTIVE);
        assertThat(pending.summary()).isEqualTo("Delete note n1");
        assertThatThrownBy(() -> fx().gate().inspect(fx().ctx(fx().reader), proposal.token())).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> fx().gate().inspect(fx().ctx(fx().writer), "garbage")).isInstanceOf(MalformedTokenException.class);
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);

        fx().gate().apply(fx().ctx(fx().writer), proposal.token());
        assertThatThrownBy(() -> fx().gate().inspect(fx().ctx(fx().writer), proposal.token()))
                .isInstanceOf(TokenAlreadyUsedException.class);
    }

    /**
     * The engine that recorded a proposal knows its immutable facts, never its status: closed by an
     * operator on another engine sharing the store (rejected, or replaced by an edit), applied there, or
     * expired by its sweeper, the proposal cannot be applied on the first engine, the typed error says
     * why, and the tool does not run.
     */
    @Test
    default void aProposalDecidedOnAnotherEngineCannotBeAppliedOnTheOneThatRecordedIt() {
        Toolgate recorder = fx().gate();
        Toolgate other = fx().gate(b -> b);
        CallContext writer = fx().ctx(fx().writer);
        CallContext operator = fx().ctx(fx().approver);
        Proposal rejected = proposeNote("n1");
        Proposal edited = proposeNote("n2");
        Proposal appliedElsewhere = proposeNote("n3");
        Proposal expired = proposeNote("n4");

        assertThat(other.reject(operator, rejected.callId(), "no")).isInstanceOf(InboxResult.Rejected.class);
        InboxResult edit = other.edit(operator, edited.callId(), "{\"id\":\"n2\",\"text\":\"edited\"}");
        assertThat(edit).isInstanceOf(InboxResult.Edited.class);
        assertThat(other.apply(writer, appliedElsewhere.token()).status()).isEqualTo("applied");
        assertThat(fx().notes.mutations).hasValue(1);

        assertThatThrownBy(() -> recorder.apply(writer, rejected.token()))
                .isInstanceOfSatisfying(ProposalClosedException.class, e -> assertThat(e).hasMessageContaining("rejected"));
        assertThatThrownBy(() -> recorder.apply(writer, edited.token()))
                .isInstanceOfSatisfying(ProposalClosedException.class, e -> assertThat(e).hasMessageContaining("edit"));
        assertThatThrownBy(() -> recorder.apply(writer, appliedElsewhere.token())).isInstanceOf(TokenAlreadyUsedException.class);
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(fx().store.calls().find(rejected.callId()).orElseThrow().status()).isEqualTo(CallStatus.REJECTED);
        assertThat(fx().store.calls().find(edited.callId()).orElseThrow().status()).isEqualTo(CallStatus.SUPERSEDED);

        fx().clock.advance(Duration.ofMinutes(10));
        assertThat(other.sweep().expired()).isEqualTo(2); // n4 and the edit's replacement
        assertThatThrownBy(() -> recorder.apply(writer, expired.token())).isInstanceOf(TokenExpiredException.class);
        assertThat(fx().notes.mutations).hasValue(1);
        assertThat(fx().notes.snapshot()).containsOnlyKeys("n3");
    }

    /**
     * What apply checks before claiming holds for a proposal the applying engine recorded itself: a
     * forged nonce, a principal without the tool's rule and the proposer under separation of duties are
     * refused, with their own errors, and leave it pending for the right applier.
     */
    @Test
    default void theRecordingEngineChecksTokenRulesAndDutiesBeforeItClaims() {
        Toolgate gate = fx().gate(b -> b.requireDistinctApprover(true));
        CallContext writer = fx().ctx(fx().writer);
        Proposal proposal = (Proposal) gate.call(writer, "notes.add", "{\"id\":\"n1\",\"text\":\"hello\"}");
        String token = proposal.token();
        String nonce = token.substring(token.lastIndexOf('.') + 1);
        String forged = token.substring(0, token.lastIndexOf('.') + 1) + (nonce.charAt(0) == 'a' ? 'b' : 'a') + nonce.substring(1);

        assertThatThrownBy(() -> gate.apply(fx().ctx(fx().approver), forged)).isInstanceOf(InvalidTokenException.class);
        assertThatThrownBy(() -> gate.apply(fx().ctx(fx().reader), token)).isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.apply(writer, token)).isInstanceOf(SeparationOfDutiesException.class);
        assertThat(fx().store.calls().find(proposal.callId()).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx().notes.mutations).hasValue(0);

        assertThat(gate.apply(fx().ctx(fx().approver), token).status()).isEqualTo("applied");
        assertThat(fx().notes.mutations).hasValue(1);
    }
}
