package dev.toolgate.testkit;

import dev.toolgate.spi.ToolgateStore;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The engine's behaviour through {@link dev.toolgate.Toolgate}, on one store implementation. Every
 * store must pass it: extend this class and open a fresh, empty store that takes all its time from
 * the given clock.
 */
public abstract class GateContractTest
        implements CallContract, ApplyContract, BudgetContract, AuditContract, PolicyContract, InboxContract,
        FailureContract, InDoubtContract, RetentionContract, SeparationOfDutiesContract, ExecutionContract,
        PreviewContract, NoticeContract, ConversationContract, StaleContract, RevertContract, WithdrawContract {

    private Fixture fixture;

    /** A fresh, empty store that uses {@code clock} for every timestamp and expiry check. */
    protected abstract ToolgateStore openStore(Clock clock);

    /** Releases a store opened by {@link #openStore}. */
    protected void closeStore(ToolgateStore store) {
        store.close();
    }

    @BeforeEach
    void openFixture() {
        MutableClock clock = new MutableClock();
        fixture = new Fixture(clock, openStore(clock));
    }

    @AfterEach
    void closeFixture() {
        fixture.close();
        closeStore(fixture.store);
    }

    @Override
    public Fixture fx() {
        return fixture;
    }
}
