package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.budget.BudgetCharge;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.spi.CallStore;
import java.time.Instant;

/** The budget's part of a call: what one call of a principal costs, its admission, and a claim charged to its decider. */
final class Charges {

    private final ToolBudget budget;
    private final CallStore calls;
    private final Events events;

    Charges(ToolBudget budget, CallStore calls, Events events) {
        this.budget = budget;
        this.calls = calls;
        this.events = events;
    }

    /** Meters one call of {@code principal}; the admission time, or null when its budget is unlimited. */
    Instant admit(Principal principal) {
        BudgetCharge charge = charge(principal);
        return charge == null ? null : calls.admit(charge);
    }

    /**
     * Claims a proposal for {@code decider}, charging the decider's budget; a budget refusal is told to
     * the listeners before it propagates.
     */
    CallStore.ClaimResult claimCharged(CallRecord record, CallStore.Claim claim, CallContext decider, long start) {
        try {
            return calls.claim(record, claim, charge(decider.principal()));
        } catch (BudgetExceededException e) {
            events.refused(record.toolName(), record.effect(), decider, record.mode(), record.modeSource(), start);
            throw e;
        }
    }

    /** What one call of {@code principal} costs, or null when its budget is unlimited. */
    BudgetCharge charge(Principal principal) {
        BudgetLimit limit = budget.limitFor(principal);
        return limit == null ? null : new BudgetCharge(principal.key(), limit);
    }
}
