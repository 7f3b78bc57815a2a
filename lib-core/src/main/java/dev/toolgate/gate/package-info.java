/**
 * The gate's vocabulary: {@link dev.toolgate.gate.CallContext}, the results of a call
 * ({@link dev.toolgate.gate.Executed}, {@link dev.toolgate.gate.Proposal},
 * {@link dev.toolgate.gate.Applied}, {@link dev.toolgate.gate.Denied}), the single-use
 * {@link dev.toolgate.gate.ProposalToken}, the {@link dev.toolgate.gate.ProposeApplyException}
 * family of faults, the operator inbox types and the {@link dev.toolgate.gate.ProposeApplyEngine}
 * contract.
 */
package dev.toolgate.gate;
