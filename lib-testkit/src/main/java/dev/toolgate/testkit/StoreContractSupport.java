package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.CallStore.Claim;
import dev.toolgate.spi.CallStore.ProposeResult;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every part of the store contract shares: a fresh store per test on a {@link MutableClock}, and
 * the records the tests store. The root of the chain of superclasses of {@link StoreContractTest}.
 */
abstract class StoreContractSupport {

    static final PrincipalRef ANN = new PrincipalRef(PrincipalKind.USER, "ann");
    static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");
    static final Duration TTL = Duration.ofMinutes(10);
    static final Duration OUTCOME_WITHIN = Duration.ofSeconds(40);

    protected MutableClock clock;
    protected ToolgateStore store;
    protected CallStore calls;
    protected PolicyStore policies;

    /** A fresh, empty store that uses {@code clock} for every timestamp and check. */
    protected abstract ToolgateStore openStore(Clock clock);

    /** Releases a store opened by {@link #openStore}. */
    protected void closeStore(ToolgateStore store) {
        store.close();
    }

    @BeforeEach
    void open() {
        clock = new MutableClock();
        store = openStore(clock);
        calls = store.calls();
        policies = store.policies();
    }

    @AfterEach
    void close() {
        closeStore(store);
    }

    /** The store's runs of durable executions. */
    protected dev.toolgate.spi.ExecutionStore runs() {
        return store.executions();
    }

    /** A finished call of {@code principal} in {@code session}, not yet stored. */
    protected static CallRecord executed(String principal, String session) {
        return CallRecord.builder()
                .id(UUID.randomUUID().toString())
                .toolName("notes.list")
                .effect(Effect.READ)
                .principal(new PrincipalRef(PrincipalKind.USER, principal))
                .tenantId("acme")
                .sessionId(session)
                .transport("java")
                .status(CallStatus.EXECUTED)
                .mode(Mode.ALLOW)
                .modeSource(ModeSource.INFERRED_DEFAULT)
                .argumentsHash("a".repeat(64))
                .resultJson("{\"ok\":true}")
                .durationMillis(3L)
                .build();
    }

    /** A proposal in {@code session}, not yet stored. */
    protected static CallRecord proposal(String session) {
        return executed("ann", session).toBuilder().toolName("notes.add").effect(Effect.MUTATE).status(CallStatus.PROPOSED)
                .mode(Mode.REQUIRE_APPROVAL).resultJson(null).summary("Add a note").payloadJson("{\"id\":\"n1\"}")
                .diffJson("[]").tokenDigest("d".repeat(64)).build();
    }

    CallRecord proposed(String session) {
        ProposeResult result = calls.propose(proposal(session), TTL, 100);
        assertThat(result.status()).isEqualTo(ProposeResult.Status.PROPOSED);
        return result.record();
    }


    static Claim claimBy(PrincipalRef principal) {
        return new Claim(principal, null, null, OUTCOME_WITHIN);
    }

    static BudgetCharge charge(String principal, int cap) {
        return new BudgetCharge("user:" + principal, BudgetLimit.of(cap, Duration.ofSeconds(60)));
    }
}
