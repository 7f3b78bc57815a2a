package dev.toolgate.audit;

/**
 * A filter over durable executions. Null fields do not filter. Results come newest first.
 *
 * @param tenantId     only this tenant
 * @param principalKey only runs started by this principal ({@code <kind>:<id>})
 * @param program      only runs of this program
 * @param status       only runs in this status
 * @param limit        at most this many, 1 to 10,000
 */
public record ExecutionQuery(String tenantId, String principalKey, String program, ExecutionStatus status, int limit) {

    /** Most runs one query returns. */
    public static final int MAX_LIMIT = 10_000;

    /** Checks the components; see the class description for what each must hold. */
    public ExecutionQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", got " + limit);
        }
    }

    /** Every run, newest first, up to {@code limit}. */
    public static ExecutionQuery latest(int limit) {
        return new ExecutionQuery(null, null, null, null, limit);
    }

    /** Only runs of this tenant. */
    public ExecutionQuery tenant(String v) { return new ExecutionQuery(v, principalKey, program, status, limit); }
    /** Only runs started by this principal key ({@code <kind>:<id>}). */
    public ExecutionQuery principal(String v) { return new ExecutionQuery(tenantId, v, program, status, limit); }
    /** Only runs of this program. */
    public ExecutionQuery program(String v) { return new ExecutionQuery(tenantId, principalKey, v, status, limit); }
    /** Only runs in this status. */
    public ExecutionQuery status(ExecutionStatus v) { return new ExecutionQuery(tenantId, principalKey, program, v, limit); }

    /** True if {@code run} passes every set filter. */
    public boolean matches(ExecutionRecord run) {
        return (tenantId == null || tenantId.equals(run.tenantId()))
                && (principalKey == null || principalKey.equals(run.principal().key()))
                && (program == null || program.equals(run.program()))
                && (status == null || status == run.status());
    }
}
