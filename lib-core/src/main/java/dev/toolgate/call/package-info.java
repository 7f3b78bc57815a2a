/**
 * The vocabulary of a call: what a host, an adapter or a plugin says to the gate and hears back.
 *
 * <p>{@link dev.toolgate.call.CallContext} (who calls, in which session and {@link dev.toolgate.call.Turn}),
 * the results of a call ({@link dev.toolgate.call.CallResult}: {@link dev.toolgate.call.Executed},
 * {@link dev.toolgate.call.Proposal}, {@link dev.toolgate.call.Applied}, {@link dev.toolgate.call.Denied}),
 * a preview ({@link dev.toolgate.call.CallPreview}), consent ({@link dev.toolgate.call.Approval},
 * {@link dev.toolgate.call.Consent}), the {@link dev.toolgate.call.ProposeApplyException} family of faults
 * and {@link dev.toolgate.call.ToolExecutionException}, the operator inbox types
 * ({@link dev.toolgate.call.PendingProposal}, {@link dev.toolgate.call.InboxResult},
 * {@link dev.toolgate.call.Freshness}, {@link dev.toolgate.call.RevertResult}), the settings
 * ({@link dev.toolgate.call.GateSettings}, {@link dev.toolgate.call.Retention}) and what a sweep or purge
 * did ({@link dev.toolgate.call.SweepResult}, {@link dev.toolgate.call.PurgeResult}).
 *
 * <p>These types do not depend on the engine ({@code dev.toolgate.gate}); the engine depends on them.
 */
package dev.toolgate.call;
