package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.gate.Applied;
import dev.toolgate.gate.CallContext;
import dev.toolgate.gate.ForbiddenException;
import dev.toolgate.gate.InvalidTokenException;
import dev.toolgate.gate.MalformedTokenException;
import dev.toolgate.gate.Proposal;
import dev.toolgate.gate.ProposeApplyException;
import dev.toolgate.gate.StaleProposalException;
import dev.toolgate.gate.TokenAlreadyUsedException;
import dev.toolgate.gate.TokenExpiredException;
import dev.toolgate.gate.UnknownProposalException;
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
}
