/**
 * The audit trail: one {@link dev.toolgate.audit.CallRecord} per call (for a proposal, its whole
 * life), with arguments kept only as a hash and results redacted and size-capped; and the
 * {@link dev.toolgate.audit.ToolCallListener} SPI that receives metadata-only events.
 */
package dev.toolgate.audit;
