/**
 * The engine behind the facade: the standard {@link dev.toolgate.gate.ProposeApplyEngine} and what it
 * is built from ({@link dev.toolgate.gate.EngineContext}, {@link dev.toolgate.gate.ProposeApplyEngine.Factory}).
 * The words a call is spoken in (its context, its results, its faults, the inbox, the settings) are in
 * {@link dev.toolgate.call}; this package uses them and they never use it.
 *
 * <p>The standard engine ({@link dev.toolgate.gate.ProposeApplyEngine#standard()}) is package-private
 * and split by verb: a model's calls and proposals, applies of claimed proposals, the operator inbox,
 * and the sweeper's upkeep, sharing one set of steps (authorize, validate, meter, run tool code with
 * its timeout, record a failure before it propagates). The single-use proposal token and the
 * duplicate-call guard's running calls are kept here too.
 *
 * <p>Only lib-core reaches into this package: the facade ({@code dev.toolgate.Toolgate}) and its
 * builder create and drive the engine. Optional modules, plugins and hosts speak
 * {@link dev.toolgate.call} and the facade; a test in every build checks that no module outside
 * lib-core imports this package.
 */
package dev.toolgate.gate;
