package dev.toolgate.budget;

import dev.toolgate.access.Principal;
import java.time.Duration;

/**
 * How many tool calls each principal may make, per rolling window. The gate asks it for the limit
 * that applies to a principal and has the store admit the call against that limit atomically with
 * the call's audit record, before any tool code runs, on every transport. The store's count is
 * shared by every instance using the same database, so the cap holds across all of them.
 *
 * <p><b>What counts:</b> each admitted call of a tool (a read execution, a proposal, a policy
 * denial), each apply of a proposal token, and each inbox approval that executes a proposal (charged
 * to the approver). What does not count: calls refused before admission (unknown tool, forbidden,
 * schema-invalid arguments, malformed or unknown tokens, over budget), listing tools, and reading the
 * audit trail or the inbox.
 *
 * <p>Supply one to the builder, or list an implementation in
 * {@code META-INF/services/dev.toolgate.budget.ToolBudget}.
 */
@FunctionalInterface
public interface ToolBudget {

    /** The limit for {@code principal}, or {@code null} for no limit. */
    BudgetLimit limitFor(Principal principal);

    /** The same limit for every principal. */
    static ToolBudget perPrincipal(int calls, Duration window) {
        BudgetLimit limit = BudgetLimit.of(calls, window);
        return principal -> limit;
    }

    /** 60 calls per 60 seconds for every principal. */
    static ToolBudget standard() {
        return principal -> BudgetLimit.DEFAULT;
    }

    /** No limit for anyone; for tests and trusted single-user tools only. */
    static ToolBudget unlimited() {
        return principal -> null;
    }
}
