/**
 * Per-principal rate limits: {@link dev.toolgate.budget.ToolBudget} says how many calls a principal
 * may make in a rolling window; the store admits each call against it atomically, exactly, across
 * every instance sharing the store.
 */
package dev.toolgate.budget;
