package dev.toolgate.budget;

import java.util.Objects;

/**
 * One admission to make against a principal's budget, atomically with a store write.
 *
 * @param principalKey the metered principal, {@code <kind>:<id>}
 * @param limit        the limit to admit against
 */
public record BudgetCharge(String principalKey, BudgetLimit limit) {

    /** Checks the components; see the class description for what each must hold. */
    public BudgetCharge {
        Objects.requireNonNull(principalKey, "principalKey");
        Objects.requireNonNull(limit, "limit");
    }
}
