package dev.toolgate.call;

/**
 * What a purge deleted.
 *
 * @param finishedCalls      audit rows of finished calls
 * @param closedProposals    proposals that closed without running
 * @param idleSessions       rows of idle sessions
 * @param idleBudgets        budget rows of idle principals
 * @param finishedExecutions finished durable executions (their steps are counted as calls)
 */
public record PurgeResult(int finishedCalls, int closedProposals, int idleSessions, int idleBudgets, int finishedExecutions) {

    /** Nothing deleted. */
    public static final PurgeResult NONE = new PurgeResult(0, 0, 0, 0, 0);

    /** Everything deleted. */
    public int total() {
        return finishedCalls + closedProposals + idleSessions + idleBudgets + finishedExecutions;
    }

    /** This result with {@code count} finished executions deleted as well. */
    public PurgeResult withFinishedExecutions(int count) {
        return new PurgeResult(finishedCalls, closedProposals, idleSessions, idleBudgets, finishedExecutions + count);
    }
}
