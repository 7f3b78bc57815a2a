package dev.toolgate.conversation;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.Json;
import dev.toolgate.json.Redactor;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.ConversationStore;
import dev.toolgate.spi.ToolgateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * What a conversation learns of the proposals it made. A model proposes a change in one turn; an
 * operator decides it later (in the inbox or the console, on any instance), or it expires. On the
 * conversation's next turn, {@link #takeDecisions} hands that turn the decisions it has not been told
 * yet, each exactly once across every instance sharing the store; a chat adapter shows them to the
 * model before the user's message. {@link #repeatOf} recognises a model's call that repeats a proposal
 * still pending or already declined, so the model is told so instead of proposing it again.
 *
 * <p>A conversation is a {@link CallContext} with a session: its session id and principal (and
 * tenant) select the proposals. A context without a session has no conversation: nothing is taken,
 * nothing repeats. Get it from {@code Toolgate.conversations()}. Thread-safe.
 */
public final class Conversations {

    /** At most this many decisions are told in one turn; the rest come in the next ones, oldest first. */
    public static final int MAX_DECISIONS_PER_TURN = 20;
    /** How many of a conversation's latest calls of one tool {@link #repeatOf} looks through. */
    static final int REPEAT_WINDOW = 50;

    private static final Logger LOG = LoggerFactory.getLogger(Conversations.class);

    private final CallStore calls;
    private final ConversationStore told;
    private final Redactor redactor;
    private final int maxArgumentBytes;

    private Conversations(CallStore calls, ConversationStore told, Redactor redactor, int maxArgumentBytes) {
        this.calls = calls;
        this.told = told;
        this.redactor = redactor;
        this.maxArgumentBytes = maxArgumentBytes;
    }

    /**
     * The conversations of a store. A store that keeps no marks of what conversations were told
     * ({@link ToolgateStore#conversations()} unsupported) still finds repeats, but
     * {@link #takeDecisions} then always returns no decisions.
     *
     * @param settings the gate's settings: its redactor (for an operator's reason) and argument size limit
     */
    public static Conversations of(ToolgateStore store, GateSettings settings) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(settings, "settings");
        ConversationStore told;
        try {
            told = store.conversations();
        } catch (UnsupportedOperationException e) {
            LOG.warn("{}: decisions on proposals are not reported back to conversations", e.getMessage());
            told = null;
        }
        return new Conversations(store.calls(), told, settings.redactor(), settings.maxArgumentBytes());
    }

    /**
     * Takes the decisions on this conversation's proposals that it has not been told yet (at most
     * {@value #MAX_DECISIONS_PER_TURN}, oldest first): each decision is returned by exactly one call, on
     * any instance, unless that call's turn {@linkplain DecisionNotes#release() releases} it. Undecided
     * proposals (pending, applying, in doubt) produce nothing; a proposal policy applied in the step that
     * made it produces nothing either (the model got that answer already).
     *
     * @param conversation the conversation: its session, principal and tenant
     * @throws dev.toolgate.spi.StoreUnavailableException if the store cannot be reached
     */
    public DecisionNotes takeDecisions(CallContext conversation) {
        Objects.requireNonNull(conversation, "conversation");
        if (told == null || conversation.sessionId() == null) {
            return DecisionNotes.none();
        }
        String principal = conversation.principal().key();
        List<CallRecord> untold = told.untold(conversation.sessionId(), principal, MAX_DECISIONS_PER_TURN);
        if (untold.isEmpty()) {
            return DecisionNotes.none();
        }
        String delivery = UUID.randomUUID().toString();
        List<Decision> decisions = new ArrayList<>();
        PrincipalRef who = PrincipalRef.of(conversation.principal());
        for (CallRecord record : untold) {
            if (Objects.equals(record.tenantId(), conversation.tenantId()) && answers(record, who)
                    && told.tell(record.id(), delivery)) {
                decisions.add(decision(record, who));
            }
        }
        List<String> ids = decisions.stream().map(Decision::proposalId).toList();
        return new DecisionNotes(decisions, () -> untell(ids, delivery));
    }

    /**
     * Whether {@code record} answers {@code who}'s conversation: {@code who} made it, or it replaced (through
     * operators' edits, at most a few hops back) a proposal {@code who} made.
     */
    private boolean answers(CallRecord record, PrincipalRef who) {
        CallRecord current = record;
        for (int hops = 0; hops < 10 && current != null; hops++) {
            if (current.principal().equals(who)) {
                return true;
            }
            current = current.supersedes() == null ? null : calls.find(current.supersedes()).orElse(null);
        }
        return false;
    }

    private void untell(List<String> ids, String delivery) {
        for (String id : ids) {
            try {
                told.untell(id, delivery);
            } catch (RuntimeException e) {
                LOG.warn("The decision on proposal {} could not be given back after a failed turn; the conversation "
                        + "will not be told of it: {}", id, e.toString());
            }
        }
    }

    /**
     * {@link #repeatOf(CallContext, String, JsonNode)} for arguments as the model sent them, JSON text
     * (null or blank means none). Text that is not JSON, or longer than the gate's argument limit,
     * repeats nothing: the gate's call reports it.
     */
    public Optional<Repeat> repeatOf(CallContext conversation, String toolName, String argumentsJson) {
        if (argumentsJson == null || argumentsJson.isBlank()) {
            return repeatOf(conversation, toolName, (JsonNode) null);
        }
        if (argumentsJson.length() > maxArgumentBytes) {
            return Optional.empty();
        }
        JsonNode arguments;
        try {
            arguments = Json.parse(argumentsJson);
        } catch (RuntimeException notJson) {
            return Optional.empty();
        }
        return repeatOf(conversation, toolName, arguments);
    }

    /**
     * The earlier proposal this call repeats in the conversation, if it still answers the call: the
     * conversation's newest proposal of the same tool with the same arguments (canonical JSON), made by
     * the same principal, when it is still pending or was declined and is within its time to live. A
     * proposal that was applied, failed, expired or edited answers nothing: proposing again is then a
     * new request. Arguments that are not valid JSON values repeat nothing (the gate's call reports them).
     *
     * @param conversation the conversation
     * @param toolName     the qualified tool name
     * @param arguments    the call's arguments; null means none
     */
    public Optional<Repeat> repeatOf(CallContext conversation, String toolName, JsonNode arguments) {
        Objects.requireNonNull(conversation, "conversation");
        if (conversation.sessionId() == null || toolName == null) {
            return Optional.empty();
        }
        String hash;
        try {
            hash = CanonicalJson.sha256Hex(arguments == null || arguments.isMissingNode() || arguments.isNull()
                    ? Json.object() : arguments);
        } catch (IllegalArgumentException notCanonical) {
            return Optional.empty();
        }
        PrincipalRef principal = PrincipalRef.of(conversation.principal());
        List<CallRecord> latest = calls.query(CallQuery.latest(REPEAT_WINDOW).session(conversation.sessionId())
                .principal(principal.key()).tool(toolName));
        Instant now = null;
        for (CallRecord record : latest) {
            if (record.tokenDigest() == null || record.status() == CallStatus.SUPERSEDED || !hash.equals(record.argumentsHash())
                    || !Objects.equals(record.tenantId(), conversation.tenantId())) {
                continue;
            }
            now = now == null ? calls.now() : now;
            if (record.pendingAt(now)) {
                return Optional.of(new Repeat.Pending(record.id(), record.summary(), record.expiresAt()));
            }
            if (record.status() == CallStatus.REJECTED && record.expiresAt() != null && record.expiresAt().isAfter(now)) {
                return Optional.of(new Repeat.Declined(decision(record, principal)));
            }
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * What became of a proposal, as the conversation of {@code conversation} is told it, without marking
     * it told (for a poller, such as an MCP task, that reads it as often as it asks; chat turns use
     * {@link #takeDecisions}). Empty while nothing is decided: the proposal is pending, being applied,
     * or in doubt (claimed, its outcome never arrived).
     *
     * @param record       a proposal's audit record ({@link dev.toolgate.Toolgate#outcomeOf} follows edits)
     * @param conversation the principal whose conversation made it: its own decisions read {@code decidedBy: user}
     */
    public Optional<Decision> decisionOn(CallRecord record, PrincipalRef conversation) {
        return switch (record.status()) {
            case APPLIED, REVERTED, FAILED, REJECTED, SUPERSEDED, STALE, EXPIRED -> Optional.of(decision(record, conversation));
            default -> Optional.empty();
        };
    }

    /** The decision a decided proposal's record holds, as {@code conversation}'s principal is told it. */
    Decision decision(CallRecord r, PrincipalRef conversation) {
        Decision.Outcome outcome = switch (r.status()) {
            case APPLIED -> Decision.Outcome.APPLIED;
            case REVERTED -> Decision.Outcome.REVERTED;
            case FAILED -> Decision.Outcome.FAILED;
            case REJECTED -> Decision.Outcome.DECLINED;
            case SUPERSEDED -> Decision.Outcome.EDITED;
            case STALE -> Decision.Outcome.STALE;
            default -> Decision.Outcome.EXPIRED;
        };
        Decision.Decider decider;
        if (outcome == Decision.Outcome.EXPIRED) {
            decider = Decision.Decider.NOBODY;
        } else {
            PrincipalRef who = r.decidedBy() != null ? r.decidedBy() : r.appliedBy();
            decider = who == null || who.equals(conversation) ? Decision.Decider.USER : Decision.Decider.OPERATOR;
        }
        String why = outcome == Decision.Outcome.STALE && r.error() != null ? r.error() : r.decisionReason();
        String reason = why == null || ConversationStore.APPLIED_IN_STEP.contains(why) ? null : redactor.redactText(why);
        boolean ran = outcome == Decision.Outcome.APPLIED || outcome == Decision.Outcome.REVERTED;
        JsonNode result = ran && r.resultJson() != null ? Json.parse(r.resultJson()) : null;
        Instant decidedAt = ConversationStore.decidedAt(r);
        return new Decision(r.id(), r.toolName(), r.effect(), outcome, decider, r.summary(), reason, result,
                outcome == Decision.Outcome.FAILED ? r.error() : null,
                outcome == Decision.Outcome.EDITED ? r.supersededBy() : null,
                decidedAt == null ? r.createdAt() : decidedAt);
    }
}
