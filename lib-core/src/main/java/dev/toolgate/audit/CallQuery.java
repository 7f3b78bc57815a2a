package dev.toolgate.audit;


/**
 * A filter over the audit trail. Null fields do not filter. Results come newest first.
 *
 * @param tenantId     only this tenant
 * @param sessionId    only this session
 * @param principalKey only calls made by this principal ({@code <kind>:<id>})
 * @param toolName     only this tool
 * @param status       only this status
 * @param executionId  only the steps of this durable execution (then ordered by step, first first)
 * @param limit        at most this many records, 1 to 10,000
 */
public record CallQuery(String tenantId, String sessionId, String principalKey, String toolName, CallStatus status,
                        String executionId, int limit) {

    /** Most records one query returns. */
    public static final int MAX_LIMIT = 10_000;

    /** Checks the components; see the class description for what each must hold. */
    public CallQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", got " + limit);
        }
    }

    /** Everything, newest first, up to {@code limit}. */
    public static CallQuery latest(int limit) {
        return new CallQuery(null, null, null, null, null, null, limit);
    }

    /** Only calls of this tenant. */
    public CallQuery tenant(String v) { return new CallQuery(v, sessionId, principalKey, toolName, status, executionId, limit); }
    /** Only calls of this session. */
    public CallQuery session(String v) { return new CallQuery(tenantId, v, principalKey, toolName, status, executionId, limit); }
    /** Only calls made by this principal key ({@code <kind>:<id>}). */
    public CallQuery principal(String v) { return new CallQuery(tenantId, sessionId, v, toolName, status, executionId, limit); }
    /** Only calls of this tool. */
    public CallQuery tool(String v) { return new CallQuery(tenantId, sessionId, principalKey, v, status, executionId, limit); }
    /** Only calls in this status. */
    public CallQuery status(CallStatus v) { return new CallQuery(tenantId, sessionId, principalKey, toolName, v, executionId, limit); }
    /** Only the steps of this durable execution, ordered by step. */
    public CallQuery execution(String v) { return new CallQuery(tenantId, sessionId, principalKey, toolName, status, v, limit); }

    /** True if {@code record} passes every set filter. */
    public boolean matches(CallRecord record) {
        return (tenantId == null || tenantId.equals(record.tenantId()))
                && (sessionId == null || sessionId.equals(record.sessionId()))
                && (principalKey == null || principalKey.equals(record.principal().key()))
                && (toolName == null || toolName.equals(record.toolName()))
                && (status == null || status == record.status())
                && (executionId == null || executionId.equals(record.executionId()));
    }

    @Override
    public String toString() {
        return "CallQuery[tenant=" + tenantId + ", session=" + sessionId + ", principal=" + principalKey + ", tool="
                + toolName + ", status=" + status + ", execution=" + executionId + ", limit=" + limit + "]";
    }

}
