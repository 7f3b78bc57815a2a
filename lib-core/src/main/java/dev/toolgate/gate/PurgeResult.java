package dev.toolgate.gate;

/**
 * What a purge deleted.
 *
 * @param finishedCalls   audit rows of finished calls
 * @param closedProposals proposals that closed without running
 * @param idleSessions    rows of idle sessions
 * @param idleBudgets     budget rows of idle principals
 */
public record PurgeResult(int finishedCalls, int closedProposals, int idleSessions, int idleBudgets) {

    /** Nothing deleted. */
    public static final PurgeResult NONE = new PurgeResult(0, 0, 0, 0);

    /** Everything deleted. */
    public int total() {
        return finishedCalls + closedProposals + idleSessions + idleBudgets;
    }

    /** The sum of this and {@code other}. */
    public PurgeResult plus(PurgeResult other) {
        return new PurgeResult(finishedCalls + other.finishedCalls, closedProposals + other.closedProposals,
                idleSessions + other.idleSessions, idleBudgets + other.idleBudgets);
    }
}
