/**
 * The gate: its vocabulary and the standard engine behind {@link dev.toolgate.gate.ProposeApplyEngine}.
 *
 * <p>Vocabulary: {@link dev.toolgate.gate.CallContext}, the results of a call
 * ({@link dev.toolgate.gate.Executed}, {@link dev.toolgate.gate.Proposal},
 * {@link dev.toolgate.gate.Applied}, {@link dev.toolgate.gate.Denied}), the single-use
 * {@link dev.toolgate.gate.ProposalToken}, the {@link dev.toolgate.gate.ProposeApplyException}
 * family of faults, the operator inbox types ({@link dev.toolgate.gate.PendingProposal},
 * {@link dev.toolgate.gate.InboxResult}), the settings ({@link dev.toolgate.gate.GateSettings},
 * {@link dev.toolgate.gate.Retention}) and what a sweep or purge did.
 *
 * <p>The standard engine ({@link dev.toolgate.gate.ProposeApplyEngine#standard()}) is package-private
 * and split by verb: a model's calls and proposals, applies of claimed proposals, the operator inbox,
 * and the sweeper's upkeep, sharing one set of steps (authorize, validate, meter, run tool code with
 * its timeout, record a failure before it propagates).
 */
package dev.toolgate.gate;
