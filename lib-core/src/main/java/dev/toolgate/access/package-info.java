/**
 * Who is calling and what they may do: {@link dev.toolgate.access.Principal}, and the
 * {@link dev.toolgate.access.Resolver} predicate that decides which tools a principal is offered and
 * may call. The same predicate is re-checked when a call executes, proposes and applies.
 */
package dev.toolgate.access;
