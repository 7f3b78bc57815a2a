/**
 * Approval notices: an {@link dev.toolgate.notice.ApprovalNotifier} hears when a proposal or a paused
 * run's step awaits a decision, when it is decided and when it expires, off the governed call's path;
 * {@link dev.toolgate.notice.WebhookNotifier} posts each notice as signed JSON (or a Slack-compatible
 * body). Notices carry metadata only, never a token, a payload or arguments.
 */
package dev.toolgate.notice;
