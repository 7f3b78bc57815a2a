-- Toolgate schema, version 7, for H2 2.x.
--
-- Idempotent: every statement can run again on a database that already has the schema, so it is
-- applied at every start (SchemaMode.APPLY) or by the host's own migration tool, for example as a
-- Flyway migration V1__toolgate.sql. Cumulative: run on a database of an earlier version, it brings
-- it to this one (version 2 added toolgate_call.outcome_due_at, the statuses 'applying' and
-- 'interrupted', and the indexes for the interrupt sweep and for purging; version 3 added the steps
-- of durable executions and reverts to toolgate_call, and the table toolgate_execution; version 4 keeps
-- the budget's admissions as rows of toolgate_budget_admission instead of an array; version 5 changes
-- nothing here: it adds a PostgreSQL function; version 6 adds toolgate_call.told_in, what
-- conversations were told of the decisions on their proposals; version 7 adds the status 'reverted'
-- and marks the calls reverted before it so). Timestamps are
-- TIMESTAMP WITH TIME ZONE; statuses, effects and modes are stored as their lower-case wire names.
-- JSON is stored as text (CLOB).

CREATE TABLE IF NOT EXISTS toolgate_schema_version (
    version    INTEGER                  NOT NULL PRIMARY KEY,
    applied_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL
);

-- The audit trail: one row per call; a proposal's row is also its token (only the nonce's digest).
-- status: executed, failed, invalid, denied (finished reads and refusals); proposed (pending);
-- applying (claimed, outcome due by outcome_due_at), applied, interrupted (no outcome by then: in
-- doubt, never re-run); reverted (applied, then undone by a rollback: reverted_by names the revert);
-- rejected, expired, superseded, stale (closed without running).
CREATE TABLE IF NOT EXISTS toolgate_call (
    id              VARCHAR(64)              NOT NULL PRIMARY KEY,
    tool_name       VARCHAR                  NOT NULL,
    effect          VARCHAR(16)              NOT NULL,
    principal       VARCHAR                  NOT NULL,
    tenant_id       VARCHAR,
    session_id      VARCHAR,
    automation_id   VARCHAR,
    transport       VARCHAR                  NOT NULL,
    status          VARCHAR(16)              NOT NULL,
    mode            VARCHAR(32)              NOT NULL,
    mode_source     VARCHAR(32)              NOT NULL,
    arguments_hash  VARCHAR(64)              NOT NULL,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    summary         VARCHAR,
    payload_json    CLOB,
    diff_json       CLOB,
    token_digest    VARCHAR(64),
    expires_at      TIMESTAMP WITH TIME ZONE,
    result_json     CLOB,
    error           VARCHAR,
    completed_at    TIMESTAMP WITH TIME ZONE,
    duration_millis BIGINT,
    applied_by      VARCHAR,
    applied_at      TIMESTAMP WITH TIME ZONE,
    outcome_due_at  TIMESTAMP WITH TIME ZONE,
    decided_by      VARCHAR,
    decision_reason VARCHAR,
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
-- The sweeper and the inbox, and a session's pending count (the pending cap) and listing
-- (H2 has no partial indexes).
CREATE INDEX IF NOT EXISTS toolgate_call_pending ON toolgate_call (status, expires_at);
CREATE INDEX IF NOT EXISTS toolgate_call_session_pending ON toolgate_call (session_id, status, expires_at);

-- Version 2: a claimed call's outcome deadline (added to a version-1 table).
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS outcome_due_at TIMESTAMP WITH TIME ZONE;
-- The interrupt sweep: claimed calls by their outcome deadline.
CREATE INDEX IF NOT EXISTS toolgate_call_applying ON toolgate_call (status, outcome_due_at);
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
-- A step is logged once per run (a second runner's insert fails: StepTakenException); also lists a
-- run's steps in order. Calls that are not steps (both NULL) are never equal here.
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_step ON toolgate_call (execution_id, step_seq);
-- A call is reverted once (a second rollback's claim finds the first revert). NULLs never collide.
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_reverts ON toolgate_call (reverts);

-- One row per metered principal: its lock, the number of its next admission and the time of its
-- newest. Admitting locks this row, so the budget is exact across every connection sharing the database.
-- admitted: version 3's log of the latest admission times (newest first), moved to
-- toolgate_budget_admission by the version 4 migration below and always empty since.
CREATE TABLE IF NOT EXISTS toolgate_budget (
    principal VARCHAR                          NOT NULL PRIMARY KEY,
    admitted  TIMESTAMP WITH TIME ZONE ARRAY DEFAULT ARRAY[] NOT NULL
);
-- Version 4 (added to a version-3 table).
ALTER TABLE toolgate_budget ADD COLUMN IF NOT EXISTS next_seq BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE toolgate_budget ADD COLUMN IF NOT EXISTS last_at TIMESTAMP WITH TIME ZONE;

-- Version 4: a metered principal's admissions still inside its window (and about as many older ones as
-- the cap), one row each, numbered in the order they took the budget row's lock; their times never
-- decrease along the numbers. The cap-th newest is found by its number, so admitting costs the same
-- whatever the cap; the admission that leaves the window is deleted by the one that admits after it.
CREATE TABLE IF NOT EXISTS toolgate_budget_admission (
    principal   VARCHAR                  NOT NULL,
    seq         BIGINT                   NOT NULL,
    admitted_at TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (principal, seq)
);

-- Version 4 migration: a version-3 log (newest first) becomes rows numbered oldest first, the row's
-- next number and newest time are set, and the array is emptied. Matches nothing once migrated.
MERGE INTO toolgate_budget_admission (principal, seq, admitted_at) KEY (principal, seq)
SELECT b.principal, CARDINALITY(b.admitted) - r.X, b.admitted[r.X]
FROM toolgate_budget b
JOIN SYSTEM_RANGE(1, (SELECT COALESCE(MAX(CARDINALITY(admitted)), 0) FROM toolgate_budget)) r ON r.X <= CARDINALITY(b.admitted)
WHERE CARDINALITY(b.admitted) > 0;
UPDATE toolgate_budget SET next_seq = next_seq + CARDINALITY(admitted), last_at = admitted[1], admitted = ARRAY[]
WHERE CARDINALITY(admitted) > 0;

-- One row per session that proposed: its lock makes the pending-proposal cap exact.
CREATE TABLE IF NOT EXISTS toolgate_session (
    session_id VARCHAR NOT NULL PRIMARY KEY
);

-- Version 3: the runs of durable executions, one row per run (ExecutionRecord); its steps are rows of
-- toolgate_call with its id. status: running, paused (pending_seq/pending_call_id name the step
-- proposal it waits on), completed, failed, rejected, expired, interrupted, rolled_back. attempt
-- fences runners: every replay or takeover increments it, and only the attempt a runner holds can
-- pause or finish the run. principal_rules (the principal's access rules at start) and logs (the
-- last attempt's log lines) are JSON arrays of strings.
CREATE TABLE IF NOT EXISTS toolgate_execution (
    id              VARCHAR(64)              NOT NULL PRIMARY KEY,
    program         VARCHAR                  NOT NULL,
    principal       VARCHAR                  NOT NULL,
    principal_rules CLOB                     NOT NULL,
    tenant_id       VARCHAR,
    session_id      VARCHAR,
    automation_id   VARCHAR,
    transport       VARCHAR                  NOT NULL,
    auto_approve    BOOLEAN                  NOT NULL,
    input_json      CLOB                     NOT NULL,
    status          VARCHAR(16)              NOT NULL,
    attempt         INTEGER                  NOT NULL,
    pending_seq     INTEGER,
    pending_call_id VARCHAR(64),
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    completed_at    TIMESTAMP WITH TIME ZONE,
    result_json     CLOB,
    error           VARCHAR,
    logs            CLOB                     NOT NULL
);

-- Listings, newest first, per tenant (operators list their tenant's runs; other filters narrow that).
CREATE INDEX IF NOT EXISTS toolgate_execution_tenant_time ON toolgate_execution (tenant_id, created_at);
-- Listings by status, the paused runs the sweep settles, and (by updated_at) the running runs it
-- takes over once stalled (H2 has no partial indexes).
CREATE INDEX IF NOT EXISTS toolgate_execution_running ON toolgate_execution (status, updated_at);
-- Retention: finished runs, oldest first (running and paused runs have none).
CREATE INDEX IF NOT EXISTS toolgate_execution_completed ON toolgate_execution (completed_at);

CREATE TABLE IF NOT EXISTS toolgate_mode_override (
    scope     VARCHAR(16)              NOT NULL,
    scope_id  VARCHAR                  NOT NULL,
    tool_name VARCHAR                  NOT NULL,
    mode      VARCHAR(32)              NOT NULL,
    set_by    VARCHAR                  NOT NULL,
    set_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, scope_id, tool_name)
);

CREATE TABLE IF NOT EXISTS toolgate_tool_review (
    tenant_id   VARCHAR                  NOT NULL,
    tool_name   VARCHAR                  NOT NULL,
    fingerprint VARCHAR                  NOT NULL,
    reviewed_by VARCHAR                  NOT NULL,
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
-- A conversation's proposals not yet told are found through toolgate_call_session_time (H2 has no
-- partial indexes).

-- Version 6: what must still hold when a proposal runs. A dry-run that shows a diff from the object's
-- current state (or declares a precondition) stores that state's fingerprint (SHA-256 hex of its canonical
-- JSON) and the state itself, redacted and size-capped; apply checks it again just before it runs and
-- ends a proposal whose state moved as 'stale'. Null for every other row.
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS precondition VARCHAR(64);
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS precondition_json CLOB;
-- One call of a precondition applies at a time: a claim of a proposal made from the same state as one
-- applying now fails on this index (the gate then ends it as stale). H2 has no partial indexes: the
-- generated column holds the precondition only while the row is applying, and a unique index allows
-- any number of NULLs.
ALTER TABLE toolgate_call ADD COLUMN IF NOT EXISTS applying_state VARCHAR(64)
    GENERATED ALWAYS AS (CASE WHEN status = 'applying' THEN precondition END);
CREATE UNIQUE INDEX IF NOT EXISTS toolgate_call_applying_state ON toolgate_call (applying_state);

-- Version 7: a call a rollback reverted reads 'reverted' (status), its revert named by reverted_by; the
-- revert itself is its own row, 'applied', naming the call in reverts. Before version 7 the reverted call
-- stayed 'applied' with reverted_by set: such rows are brought to 'reverted' by this update, which runs
-- only while version 7 is not recorded (it reads the whole table once; on a new database it finds no row).
-- No column, constraint or index changes: status holds the new wire name as it holds the others.
UPDATE toolgate_call SET status = 'reverted'
WHERE status = 'applied' AND reverted_by IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM toolgate_schema_version WHERE version >= 7);

MERGE INTO toolgate_schema_version (version) KEY (version) VALUES (7);
