package dev.toolgate.call;

import dev.toolgate.json.JsonTruncator;
import dev.toolgate.json.Redactor;
import java.time.Duration;
import java.util.Objects;

/**
 * The gate's tunables. Immutable; the builder of {@code Toolgate} sets them.
 *
 * @param interactiveTtl      how long a proposal of an interactive session waits (10 minutes)
 * @param unattendedTtl       how long a proposal of an unattended run waits (24 hours)
 * @param maxPendingPerSession most pending proposals per session (10)
 * @param approverRule        the rule an operator needs to approve, reject or edit ({@code toolgate.approvals.manage})
 * @param executionTimeout    default limit on a dry-run or execution (30 seconds); tools may override
 * @param resultLimitBytes    cap on a stored or returned result (10 KB); larger results are pruned structurally
 * @param maxArgumentBytes    cap on the JSON text of a call's arguments (256 KB)
 * @param redactor            what counts as a secret in results, diffs and error messages
 * @param requireDistinctApprover separation of duties (false): when true, nobody decides on their own
 *                            proposal: its proposer can neither apply its token nor approve or edit it in
 *                            the inbox (policy auto-apply is unaffected)
 * @param retention           how long stored rows are kept before the sweeper purges them
 * @param toolsOnCallerThread whether a tool that runs on the caller's thread (each tool's default) does
 *                            (true); when false every tool runs on the gate's tool threads, whatever it
 *                            declared, so a caller is always answered at the timeout
 */
public record GateSettings(Duration interactiveTtl, Duration unattendedTtl, int maxPendingPerSession,
                           String approverRule, Duration executionTimeout, int resultLimitBytes, int maxArgumentBytes,
                           Redactor redactor, boolean requireDistinctApprover, Retention retention,
                           boolean toolsOnCallerThread) {

    /** The rule operators need by default. */
    public static final String DEFAULT_APPROVER_RULE = "toolgate.approvals.manage";

    /** Checks the components; see the class description for what each must hold. */
    public GateSettings {
        positive(interactiveTtl, "interactiveTtl");
        positive(unattendedTtl, "unattendedTtl");
        positive(executionTimeout, "executionTimeout");
        if (maxPendingPerSession < 1) {
            throw new IllegalArgumentException("maxPendingPerSession must be at least 1, got " + maxPendingPerSession);
        }
        Objects.requireNonNull(approverRule, "approverRule");
        if (resultLimitBytes < 64) {
            throw new IllegalArgumentException("resultLimitBytes must be at least 64, got " + resultLimitBytes);
        }
        if (maxArgumentBytes < 2) {
            throw new IllegalArgumentException("maxArgumentBytes must be at least 2, got " + maxArgumentBytes);
        }
        Objects.requireNonNull(redactor, "redactor");
        Objects.requireNonNull(retention, "retention");
    }

    /** The defaults listed above. */
    public static GateSettings defaults() {
        return new GateSettings(Duration.ofMinutes(10), Duration.ofHours(24), 10, DEFAULT_APPROVER_RULE,
                Duration.ofSeconds(30), JsonTruncator.DEFAULT_MAX_BYTES, 256 * 1024, Redactor.defaults(), false,
                Retention.defaults(), true);
    }

    /** The TTL for a session kind. */
    public Duration ttlFor(SessionKind kind) {
        return kind == SessionKind.UNATTENDED ? unattendedTtl : interactiveTtl;
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
    }
}
