package dev.toolgate.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A step policy applies at once (a standing approval here; ALLOW or AUTO alike) is a proposal and its
 * claim. A store fault between the two (the proposal logged, the claim refused) leaves the run running
 * with the step proposed, nothing run; the takeover's replay finds a logged proposal and waits for
 * consent rather than applying it unasked: the run is paused at that step (typed, in the inbox), and an
 * approval completes it, the step's tool running once. What {@code PostgresFaultTest} saw once under a
 * real fault, made deterministic.
 */
class StepCutByFaultTest {

    @Test
    void anAutoAppliedStepCutBetweenItsProposalAndItsClaimWaitsForConsentAfterTheTakeoverAndRunsOnce() {
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        Tool<NoInput, String> write = Tool.builder("write", NoInput.class).description("write").effect(Effect.MUTATE)
                .requires("t.write").standingApproval().execute((in, ctx) -> "wrote " + writes.incrementAndGet()).build();
        Tool<NoInput, String> read = Tool.builder("read", NoInput.class).description("read").effect(Effect.READ)
                .requires("t.read").execute((in, ctx) -> "read " + reads.incrementAndGet()).build();
        ShiftedClock clock = new ShiftedClock();
        InMemoryStore memory = new InMemoryStore(clock);
        AtomicBoolean refuseClaim = new AtomicBoolean(true);
        Principal user = Principal.user("u", "t.read", "t.write");
        Principal operator = Principal.user("op", "t.read", "t.write", "toolgate.approvals.manage");
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .store(failingClaims(memory, refuseClaim)).budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO)
                .tools("t", write, read)
                .program("t.run", run -> run.call("t.write", null).asString() + ", " + run.call("t.read", null).asString())
                .build()) {
            CallContext ctx = CallContext.of(user).withTenant("acme");
            assertThatThrownBy(() -> gate.executions().start(ctx, "t.run", (String) null))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.fault())
                            .isEqualTo(StoreFault.UNREACHABLE));
            refuseClaim.set(false);
            String id = gate.executions().executions(dev.toolgate.audit.ExecutionQuery.latest(1)).get(0).id();
            assertThat(gate.executions().find(id).orElseThrow().status()).as("the attempt ended, the run stays")
                    .isEqualTo(ExecutionStatus.RUNNING);
            assertThat(gate.executions().steps(id)).extracting(CallRecord::status).containsExactly(CallStatus.PROPOSED);
            assertThat(writes).hasValue(0);

            clock.shift(gate.executions().quietPeriod().plusSeconds(5));
            gate.sweep();
            var paused = gate.executions().find(id).orElseThrow();
            assertThat(paused.status()).as("the takeover waits for consent").isEqualTo(ExecutionStatus.PAUSED);
            assertThat(paused.pendingSeq()).isEqualTo(1);
            assertThat(gate.executions().pending(CallContext.of(operator).withTenant("acme")))
                    .extracting(PendingAction::executionId).containsExactly(id);
            assertThat(writes).as("nothing was applied unasked").hasValue(0);

            ExecutionOutcome done = gate.executions().approve(CallContext.of(operator).withTenant("acme"), id, 1);
            assertThat(done).isInstanceOfSatisfying(ExecutionOutcome.Completed.class,
                    c -> assertThat(c.result().asString()).isEqualTo("wrote 1, read 1"));
            assertThat(writes).as("the step ran once").hasValue(1);
            assertThat(reads).hasValue(1);
        }
    }

    /** {@code store} whose call store refuses claims while {@code refuse} is set, as a lost connection would. */
    private static ToolgateStore failingClaims(InMemoryStore store, AtomicBoolean refuse) {
        CallStore calls = store.calls();
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("claim") && refuse.get()) {
                throw new StoreUnavailableException("connection refused", null, StoreFault.UNREACHABLE, Duration.ofSeconds(2));
            }
            try {
                return method.invoke(calls, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        CallStore failing = (CallStore) Proxy.newProxyInstance(CallStore.class.getClassLoader(),
                new Class<?>[] {CallStore.class}, handler);
        return new ToolgateStore() {
            @Override
            public CallStore calls() {
                return failing;
            }

            @Override
            public dev.toolgate.spi.PolicyStore policies() {
                return store.policies();
            }

            @Override
            public dev.toolgate.spi.ExecutionStore executions() {
                return store.executions();
            }

            @Override
            public dev.toolgate.spi.ConversationStore conversations() {
                return store.conversations();
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }

    private static final class ShiftedClock extends Clock {

        private final AtomicReference<Duration> shift = new AtomicReference<>(Duration.ZERO);

        void shift(Duration by) {
            shift.updateAndGet(d -> d.plus(by));
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(shift.get());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
