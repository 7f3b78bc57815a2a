-- Toolgate schema, version 6, for PostgreSQL 12 or newer.
--
-- Idempotent: every statement can run again on a database that already has the schema, so it is
-- applied at every start (SchemaMode.APPLY) or by the host's own migration tool, for example as a
-- Flyway migration V1__toolgate.sql. Cumulative: run on a database of an earlier version, it brings
-- it to this one (version 2 added toolgate_call.outcome_due_at, the statuses 'applying' and
-- 'interrupted', and the indexes for the interrupt sweep and for purging; version 3 added the steps
-- of durable executions and reverts to toolgate_call, and the table toolgate_execution; version 4 keeps
-- the budget's admissions as rows of toolgate_budget_admission instead of an array; version 5 adds the
-- function toolgate_session_room, so a proposal in a session is one statement; version 6 adds
-- toolgate_call.told_in, what conversations were told of the decisions on their proposals). Timestamps are
-- TIMESTAMP WITH TIME ZONE; statuses, effects and modes are stored as their lower-case wire names.

CREATE TABLE IF NOT EXISTS toolgate_schema_version (
    version    INTEGER                  NOT NULL PRIMARY KEY,
    applied_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The audit trail: one row per call; a proposal's row is also its token (only the nonce's digest).
-- status: executed, failed, invalid, denied (finished reads and refusals); proposed (pending);
-- applying (claimed, outcome due by outcome_due_at), applied, interrupted (no outcome by then: in
-- doubt, never re-run); rejected, expired, superseded (closed without running).
CREATE TABLE IF NOT EXISTS toolgate_call (
    id              VARCHAR(64)              NOT NULL PRIMARY KEY,
    tool_name       TEXT                     NOT NULL,
    effect          VARCHAR(16)              NOT NULL,
    principal       TEXT                     NOT NULL,
    tenant_id       TEXT,
    session_id      TEXT,
    automation_id   TEXT,
    transport       TEXT                     NOT NULL,
    status          VARCHAR(16)              NOT NULL,
    mode            VARCHAR(32)              NOT NULL,
    mode_source     VARCHAR(32)              NOT NULL,
    arguments_hash  VARCHAR(64)              NOT NULL,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    summary         TEXT,
    payload_json    TEXT,
    diff_json       TEXT,
    token_digest    VARCHAR(64),
    expires_at      TIMESTAMP WITH TIME ZONE,
    result_json     TEXT,
    error           TEXT,
    completed_at    TIMESTAMP WITH TIME ZONE,
    duration_millis BIGINT,
    applied_by      TEXT,
    applied_at      TIMESTAMP WITH TIME ZONE,
    outcome_due_at  TIMESTAMP WITH TIME ZONE,
    decided_by      TEXT,
    decision_reason TEXT,
    supersedes      VARCHAR(64),
    superseded_by   VARCHAR(64)
);

-- Audit listings per principal, tenant and session, newest first.
CREATE INDEX IF NOT EXISTS toolgate_call_principal_time ON toolgate_call (principal, created_at);
CREATE INDEX IF NOT EXISTS toolgate_call_tenant_time ON toolgate_call (tenant_id, created_at);
CREATE INDEX IF NOT EXISTS toolgate_call_session_time ON toolgate_call (session_id, created_at);
-- The whole audit trail newest first, and paging it by (created_at, id) (the operator console's
-- audit view). Added within version 3: an index only, nothing reads or writes differently without it.
CREATE INDEX IF NOT EXISTS toolgate_call_time ON toolgate_call (created_at DESC, id);
-- Pending proposals only, so these stay small: the sweeper and the inbox, and a session's pending
-- count (the pending cap) and listing.
CREATE INDEX IF NOT EXISTS toolgate_call_pending ON toolgate_call (expires_at) WHERE status = 'proposed';
CREATE INDEX IF NOT EXISTS toolgate_call_session_pending ON toolgate_call (session_id, expires_at) WHERE status = 'proposed';

-- Version 2: a claimed call's outcome deadline (added to a version-1 table).
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS outcome_due_at TIMESTAMP WITH TIME ZONE;
-- Claimed calls awaiting their outcome only: the interrupt sweep.
CREATE INDEX IF NOT EXISTS toolgate_call_applying ON toolgate_call (outcome_due_at) WHERE status = 'applying';
-- Retention: finished calls and closed proposals, oldest first (also finds unfinished rows: completed_at IS NULL).
CREATE INDEX IF NOT EXISTS toolgate_call_completed ON toolgate_call (completed_at);

-- Version 2 migration: a version-1 claim was status 'applied' with no outcome yet (completed_at
-- null); if one is still like that, its instance stopped while the tool ran or is still running it.
-- It becomes 'applying' with its outcome already due, so the next sweep reports it as interrupted
-- (in doubt) and an operator resolves it; it is never re-run. Matches nothing once migrated.
UPDATE toolgate_call SET status = 'applying', outcome_due_at = COALESCE(applied_at, created_at)
WHERE completed_at IS NULL AND status = 'applied';

-- Version 3: durable executions (added to a version-1 or version-2 table). A call that is a step of
-- a run carries the run's id and its step number (both or neither); a revert made by a rollback names
-- the call it reverts, and the reverted call names its revert.
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS execution_id VARCHAR(64);
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS step_seq INTEGER;
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS reverts VARCHAR(64);
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS reverted_by VARCHAR(64);
-- Steps only (a call that is no step adds nothing to it): a step is logged once per run (a second
-- runner's insert fails: StepTakenException), and a run's steps are listed in order.
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_step ON toolgate_call (execution_id, step_seq)
    WHERE execution_id IS NOT NULL;
-- Reverts only: a call is reverted once (INSERT ... ON CONFLICT (reverts) WHERE reverts IS NOT NULL).
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_reverts ON toolgate_call (reverts) WHERE reverts IS NOT NULL;

-- One row per metered principal: the number of its next admission and the time of its newest.
-- Admitting locks the principal (see toolgate_admit), so the budget is exact across every instance
-- sharing the database; purges lock the row itself.
-- admitted: version 3's log of the latest admission times (newest first), moved to
-- toolgate_budget_admission by the version 4 migration below and always empty since.
CREATE TABLE IF NOT EXISTS toolgate_budget (
    principal TEXT                             NOT NULL PRIMARY KEY,
    admitted  TIMESTAMP WITH TIME ZONE ARRAY   NOT NULL DEFAULT '{}'
);
-- Version 4 (added to a version-3 table).
ALTER TABLE toolgate_budget ADD COLUMN IF NOT EXISTS next_seq BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE toolgate_budget ADD COLUMN IF NOT EXISTS last_at TIMESTAMP WITH TIME ZONE;

-- Version 4: a metered principal's admissions still inside its window (and about as many older ones as
-- the cap), one row each, numbered in the order they took the budget row's lock; their times never
-- decrease along the numbers. The cap-th newest is found by its number, so admitting costs the same
-- whatever the cap; the admission that leaves the window is deleted by the one that admits after it.
CREATE TABLE IF NOT EXISTS toolgate_budget_admission (
    principal   TEXT                     NOT NULL,
    seq         BIGINT                   NOT NULL,
    admitted_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (principal, seq)
);

-- Version 4 migration: a version-3 log (newest first) becomes rows numbered oldest first, the row's
-- next number and newest time are set, and the array is emptied. Matches nothing once migrated.
INSERT INTO toolgate_budget_admission (principal, seq, admitted_at)
SELECT b.principal, CARDINALITY(b.admitted) - t.i, t.a
FROM toolgate_budget b CROSS JOIN LATERAL UNNEST(b.admitted) WITH ORDINALITY AS t(a, i)
WHERE CARDINALITY(b.admitted) > 0
ON CONFLICT (principal, seq) DO NOTHING;
UPDATE toolgate_budget SET next_seq = next_seq + CARDINALITY(admitted), last_at = admitted[1], admitted = '{}'
WHERE CARDINALITY(admitted) > 0;

-- Version 4: one admission, inside the database (toolgate-jdbc's AdmissionLog and StatementAdmissions
-- describe the rule and why it is exact). Locks the principal; being VOLATILE, each later statement
-- takes a fresh snapshot and so sees what the previous holder of the lock committed. The lock is
-- pg_advisory_xact_lock(1952609636, hashtext(principal)) (the first key is the ASCII of 'tbud', Toolgate's
-- budgets), held until the calling transaction ends (within version 5, same signature; before, the
-- budget row's FOR UPDATE lock): in the server's lock table only, so a refusal writes nothing (no
-- tuple lock on a heap page, no WAL, no transaction id) and an admission writes only its own rows. The
-- advance of the row is guarded by the number read under the lock: a purge that deleted the row in
-- between (purges lock the row itself, never the principal) makes it update nothing, and the function
-- then returns no row without admitting. Two principals whose names share a hash only wait for each other.
-- Returns no row when the principal has no budget row (the caller creates it and calls again); else
-- whether it admitted, the admission's time (max(p_now or the clock read after the lock, last_at)) and
-- the time of the cap-th newest admission before it (null if the log has none).
CREATE OR REPLACE FUNCTION toolgate_admit(p_principal TEXT, p_cap INTEGER, p_window_us BIGINT,
                                          p_now TIMESTAMP WITH TIME ZONE)
RETURNS TABLE (is_admitted BOOLEAN, at_time TIMESTAMP WITH TIME ZONE, cap_th TIMESTAMP WITH TIME ZONE)
LANGUAGE plpgsql VOLATILE AS '
DECLARE
    v_next BIGINT;
    v_last TIMESTAMP WITH TIME ZONE;
BEGIN
    PERFORM pg_advisory_xact_lock(1952609636, hashtext(p_principal));
    SELECT b.next_seq, b.last_at INTO v_next, v_last FROM toolgate_budget b WHERE b.principal = p_principal;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    at_time := GREATEST(COALESCE(p_now, clock_timestamp()), v_last);
    SELECT a.admitted_at INTO cap_th FROM toolgate_budget_admission a
    WHERE a.principal = p_principal AND a.seq = v_next - p_cap;
    is_admitted := cap_th IS NULL OR cap_th <= at_time - p_window_us * INTERVAL ''1 microsecond'';
    IF is_admitted THEN
        UPDATE toolgate_budget SET next_seq = v_next + 1, last_at = at_time
        WHERE principal = p_principal AND next_seq = v_next;
        IF NOT FOUND THEN
            RETURN;
        END IF;
        INSERT INTO toolgate_budget_admission (principal, seq, admitted_at) VALUES (p_principal, v_next, at_time);
        IF cap_th IS NOT NULL THEN
            DELETE FROM toolgate_budget_admission WHERE principal = p_principal AND seq = v_next - p_cap;
        END IF;
    END IF;
    RETURN NEXT;
END
';

-- One row per session that proposed (what Purge.IDLE_SESSIONS and endSession delete). On H2 its row
-- lock makes the pending-proposal cap exact; on PostgreSQL a transaction-level advisory lock does.
CREATE TABLE IF NOT EXISTS toolgate_session (
    session_id TEXT NOT NULL PRIMARY KEY
);

-- Version 5: whether a session has room for one more pending proposal, decided under a lock of the
-- session held until the calling statement's transaction ends. Each statement of this VOLATILE
-- function takes a new snapshot (READ COMMITTED), so the count sees every proposal committed by the
-- lock's previous holder; the proposal's INSERT ... WHERE toolgate_session_room(...) is then one
-- autocommit statement whose lock keeps the next proposer of the session waiting until it commits.
-- The lock is pg_advisory_xact_lock(1953719667, hashtext(session)) (the first key is the ASCII of 'tses',
-- Toolgate's sessions; a host's own advisory locks should use other first keys):
-- kept in the server's lock table only, so unlike the toolgate_session row lock it used before (within
-- version 5, same signature) it writes no tuple lock to a heap page and no WAL record, cannot vanish
-- under a purge, and needs no retry loop. Two sessions whose names share a hash only wait for each
-- other. The session's row is still inserted once, so purges and endSession see which sessions
-- proposed; after that a plain index probe finds it (within version 5, same signature: an
-- INSERT ... ON CONFLICT DO NOTHING every time cost 2-3 microseconds more a proposal). p_now: a fixed clock
-- (tests), or null for the statement's time.
CREATE OR REPLACE FUNCTION toolgate_session_room(p_session TEXT, p_max_pending INTEGER,
                                                 p_now TIMESTAMP WITH TIME ZONE)
RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS '
DECLARE
    v_pending BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(1953719667, hashtext(p_session));
    PERFORM 1 FROM toolgate_session s WHERE s.session_id = p_session;
    IF NOT FOUND THEN
        INSERT INTO toolgate_session (session_id) VALUES (p_session) ON CONFLICT (session_id) DO NOTHING;
    END IF;
    SELECT COUNT(*) INTO v_pending FROM toolgate_call p
    WHERE p.session_id = p_session AND p.status = ''proposed''
      AND p.expires_at > COALESCE(p_now, statement_timestamp());
    RETURN v_pending < p_max_pending;
END
';

-- Version 3: the runs of durable executions, one row per run (ExecutionRecord); its steps are rows of
-- toolgate_call with its id. status: running, paused (pending_seq/pending_call_id name the step
-- proposal it waits on), completed, failed, rejected, expired, interrupted, rolled_back. attempt
-- fences runners: every replay or takeover increments it, and only the attempt a runner holds can
-- pause or finish the run. principal_rules (the principal's access rules at start) and logs (the
-- last attempt's log lines) are JSON arrays of strings.
CREATE TABLE IF NOT EXISTS toolgate_execution (
    id              VARCHAR(64)              NOT NULL PRIMARY KEY,
    program         TEXT                     NOT NULL,
    principal       TEXT                     NOT NULL,
    principal_rules TEXT                     NOT NULL,
    tenant_id       TEXT,
    session_id      TEXT,
    automation_id   TEXT,
    transport       TEXT                     NOT NULL,
    auto_approve    BOOLEAN                  NOT NULL,
    input_json      TEXT                     NOT NULL,
    status          VARCHAR(16)              NOT NULL,
    attempt         INTEGER                  NOT NULL,
    pending_seq     INTEGER,
    pending_call_id VARCHAR(64),
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    completed_at    TIMESTAMP WITH TIME ZONE,
    result_json     TEXT,
    error           TEXT,
    logs            TEXT                     NOT NULL
);

-- Listings, newest first, per tenant (operators list their tenant's runs; other filters narrow that).
CREATE INDEX IF NOT EXISTS toolgate_execution_tenant_time ON toolgate_execution (tenant_id, created_at);
-- Running runs only, by their last change: the sweep's takeover of stalled runs.
CREATE INDEX IF NOT EXISTS toolgate_execution_running ON toolgate_execution (updated_at) WHERE status = 'running';
-- Paused runs only: the sweep settles those whose pending step closed.
CREATE INDEX IF NOT EXISTS toolgate_execution_paused ON toolgate_execution (pending_call_id) WHERE status = 'paused';
-- Retention: finished runs, oldest first (running and paused runs have none).
CREATE INDEX IF NOT EXISTS toolgate_execution_completed ON toolgate_execution (completed_at) WHERE completed_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS toolgate_mode_override (
    scope     VARCHAR(16)              NOT NULL,
    scope_id  TEXT                     NOT NULL,
    tool_name TEXT                     NOT NULL,
    mode      VARCHAR(32)              NOT NULL,
    set_by    TEXT                     NOT NULL,
    set_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, scope_id, tool_name)
);

CREATE TABLE IF NOT EXISTS toolgate_tool_review (
    tenant_id   TEXT                     NOT NULL,
    tool_name   TEXT                     NOT NULL,
    fingerprint TEXT                     NOT NULL,
    reviewed_by TEXT                     NOT NULL,
    reviewed_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (tenant_id, tool_name)
);

-- Version 6: what conversations were told (added to a version-5 table). A decided proposal's row names
-- the delivery (a model turn) that told its conversation of the decision (toolgate-jdbc's
-- JdbcConversationStore); null until then, and for every row that is no proposal. Proposals decided
-- before version 6 count as told, so an upgrade does not tell old conversations of old decisions: that
-- update runs only while version 6 is not recorded (on a new database it finds no row).
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS told_in VARCHAR(64);
UPDATE toolgate_call SET told_in = 'before-version-6'
WHERE told_in IS NULL AND token_digest IS NOT NULL AND status <> 'proposed'
  AND NOT EXISTS (SELECT 1 FROM toolgate_schema_version WHERE version >= 6);
-- A conversation's proposals not yet told (pending ones too; they are few).
CREATE INDEX IF NOT EXISTS toolgate_call_untold ON toolgate_call (session_id) WHERE told_in IS NULL AND token_digest IS NOT NULL;

-- Version 6: what must still hold when a proposal runs. A dry-run that shows a diff from the object's
-- current state (or declares a precondition) stores that state's fingerprint (SHA-256 hex of its canonical
-- JSON) and the state itself, redacted and size-capped; apply checks it again just before it runs and
-- ends a proposal whose state moved as 'stale'. Null for every other row.
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS precondition VARCHAR(64);
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS precondition_json TEXT;
-- One call of a precondition applies at a time, across every instance: a claim of a proposal made from the
-- same state as one applying now fails on this index (the gate then ends it as stale).
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_applying_state ON toolgate_call (precondition)
    WHERE status = 'applying' AND precondition IS NOT NULL;

INSERT INTO toolgate_schema_version (version) VALUES (6) ON CONFLICT (version) DO NOTHING;
