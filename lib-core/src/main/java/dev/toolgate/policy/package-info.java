/**
 * Policy: the three modes (ALLOW, REQUIRE_APPROVAL, DENY) resolved by a cascade
 * ({@link dev.toolgate.policy.ModeCascade}), the conversation's
 * {@link dev.toolgate.policy.PermissionMode}, the pure disposition table
 * ({@link dev.toolgate.policy.Dispositions}) and schema-drift reviews.
 */
package dev.toolgate.policy;
