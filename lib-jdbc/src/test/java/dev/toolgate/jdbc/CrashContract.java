package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.audit.ToolCallEvent;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issues 10 and 11, with a real crash: a child JVM is killed with SIGKILL
 * ({@link Process#destroyForcibly()}) inside a tool, and the test JVM (the parent, another instance on
 * the same database) finds what it left. A token applied by the child: the claim it committed
 * survives; the call reads {@code applying} until its outcome is due, then the sweep marks it
 * {@code interrupted} (in doubt), operators find it, and nothing ever runs it again. A run whose
 * paused step the child approved: killed while the replay goes on after the approved step, the run
 * reads {@code running} with that step applied, and after the quiet period the parent's sweep takes
 * it over, serves the approved step from the log and completes it; killed inside the approved step's
 * tool, the step reads {@code interrupted} once due, and the run ends {@code interrupted} with nothing
 * re-run. Each database runs it through a subclass.
 */
abstract class CrashContract {

    /** The child's execution timeout: long enough that the child never times out before the kill. */
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(10);
    /** The longest wait for the child to reach the tool (a JVM start, the store, the gate). */
    private static final Duration CHILD_START = Duration.ofSeconds(60);
    /** How long a running run must be quiet before a sweep takes it over: the execution timeout and 30 s. */
    private static final Duration QUIET = CHILD_TIMEOUT.plusSeconds(30);

    @TempDir
    Path dir;

    /** The URL of a fresh database that a child process can open too. */
    abstract String newDatabase(Path dir);

    /** Whether the database admits one process at a time (an H2 file): the parent then closes its store while the child runs. */
    abstract boolean oneProcessAtATime();

    @Test
    void aClaimWhoseProcessIsKilledInsideTheToolReadsInterruptedOnceDueAndIsNeverRunAgain() throws Exception {
        String url = newDatabase(dir);
        ShiftedClock clock = new ShiftedClock();
        AtomicInteger parentExecutions = new AtomicInteger();
        Parent parent = new Parent(url, clock, parentExecutions, new AtomicInteger());
        Proposal proposal;
        try {
            proposal = parent.gate().propose(CrashHost.context(), CrashHost.TOOL, "{\"key\":\"k1\",\"value\":\"v1\"}");
            if (oneProcessAtATime()) {
                parent.close();
            }

            Instant beforeChild = Instant.now();
            String executing = runChildUntilKilledInsideATool(url, "apply", proposal.token(), Long.toString(CHILD_TIMEOUT.toMillis()));
            assertThat(executing).as("the child ran the proposal's call").isEqualTo(proposal.callId());

            if (oneProcessAtATime()) {
                parent = new Parent(url, clock, parentExecutions, new AtomicInteger());
            }
            CallRecord claimed = parent.gate().findCall(proposal.callId()).orElseThrow();
            assertThat(claimed.status()).as("the claim survived the kill; no outcome came").isEqualTo(CallStatus.APPLYING);
            assertThat(claimed.completedAt()).isNull();
            assertThat(claimed.resultJson()).isNull();
            assertThat(claimed.appliedBy()).isEqualTo(PrincipalRef.of(CrashHost.WRITER));
            assertThat(claimed.appliedAt()).isAfterOrEqualTo(beforeChild.minusSeconds(1));
            assertThat(claimed.outcomeDueAt()).as("due after the child's execution timeout")
                    .isAfterOrEqualTo(claimed.appliedAt().plus(CHILD_TIMEOUT));

            assertThat(parent.gate().sweep().interrupted()).as("not due yet").isZero();
            clock.shift(Duration.between(Instant.now(), claimed.outcomeDueAt()).plusSeconds(1));
            assertThat(parent.gate().sweep().interrupted()).isEqualTo(1);

            assertThat(parent.events()).as("one listener event says so").singleElement().satisfies(e -> {
                assertThat(e.callId()).isEqualTo(proposal.callId());
                assertThat(e.status()).isEqualTo(CallStatus.INTERRUPTED);
                assertThat(e.principal()).isEqualTo(PrincipalRef.of(CrashHost.WRITER));
            });
            assertThat(parent.gate().interrupted(CallContext.of(CrashHost.OPERATOR).withTenant("acme")))
                    .as("the operator's inbox shows it").extracting(CallRecord::id).containsExactly(proposal.callId());
            CallRecord interrupted = parent.gate().findCall(proposal.callId()).orElseThrow();
            assertThat(interrupted.status()).isEqualTo(CallStatus.INTERRUPTED);
            assertThat(interrupted.completedAt()).isNotNull();
            assertThat(parent.gate().findCalls(CallQuery.latest(10).status(CallStatus.INTERRUPTED)))
                    .extracting(CallRecord::id).containsExactly(proposal.callId());
            assertThat(parent.gate().sweep().interrupted()).as("reported once").isZero();
            Toolgate gate = parent.gate();
            String token = proposal.token();
            assertThatThrownBy(() -> gate.apply(CrashHost.context(), token))
                    .as("an interrupted call is never run again").isInstanceOf(TokenAlreadyUsedException.class);
            assertThat(parentExecutions).as("the parent's tool never ran").hasValue(0);
        } finally {
            parent.close();
        }
    }

    @Test
    void aRunWhoseProcessIsKilledInItsReplayIsTakenOverOnceQuietAndItsApprovedStepIsServedFromTheLog() throws Exception {
        String url = newDatabase(dir);
        ShiftedClock clock = new ShiftedClock();
        AtomicInteger parentWrites = new AtomicInteger();
        AtomicInteger parentReads = new AtomicInteger();
        Parent parent = new Parent(url, clock, parentWrites, parentReads);
        try {
            String id = parent.gate().executions().start(CrashHost.context(), CrashHost.PROGRAM, "{}").executionId();
            ExecutionRecord paused = parent.gate().executions().find(id).orElseThrow();
            assertThat(paused.status()).isEqualTo(ExecutionStatus.PAUSED);
            assertThat(paused.pendingSeq()).isEqualTo(2);
            String approved = paused.pendingCallId();
            if (oneProcessAtATime()) {
                parent.close();
            }

            String executing = runChildUntilKilledInsideATool(url, "approve", id, Long.toString(CHILD_TIMEOUT.toMillis()), "read");
            assertThat(executing).as("the child was in the read after the approved step").isNotEqualTo(approved);

            if (oneProcessAtATime()) {
                parent = new Parent(url, clock, parentWrites, parentReads);
            }
            ExecutionRecord running = parent.gate().executions().find(id).orElseThrow();
            assertThat(running.status()).as("the child's replay holds the run").isEqualTo(ExecutionStatus.RUNNING);
            assertThat(running.attempt()).isEqualTo(2);
            List<CallRecord> steps = parent.gate().executions().steps(id);
            assertThat(steps).extracting(CallRecord::status).as("step 3 never got logged")
                    .containsExactly(CallStatus.EXECUTED, CallStatus.APPLIED);
            assertThat(steps.get(1).id()).isEqualTo(approved);
            assertThat(steps.get(1).appliedBy()).isEqualTo(PrincipalRef.of(CrashHost.OPERATOR));
            assertThat(steps.get(1).resultJson()).isEqualTo("\"written k1\"");
            assertThat(parent.gate().findCalls(CallQuery.latest(10).status(CallStatus.APPLYING))).as("nothing in doubt").isEmpty();

            assertThat(parent.gate().sweep().interrupted()).isZero();
            assertThat(parent.gate().executions().find(id).orElseThrow().attempt()).as("not quiet long enough").isEqualTo(2);
            clock.shift(QUIET.plusSeconds(5));
            parent.gate().sweep();

            ExecutionRecord done = parent.gate().executions().find(id).orElseThrow();
            assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(done.attempt()).as("taken over once").isEqualTo(3);
            assertThat(Json.parse(done.resultJson()))
                    .isEqualTo(Json.toTree(Map.of("before", "read k1", "written", "written k1", "after", "read k1")));
            assertThat(parentWrites).as("the approved step was served from the log").hasValue(0);
            assertThat(parentReads).as("step 1 at the start, step 3 in the takeover").hasValue(2);
            assertThat(parent.gate().executions().steps(id)).extracting(CallRecord::status)
                    .containsExactly(CallStatus.EXECUTED, CallStatus.APPLIED, CallStatus.EXECUTED);
        } finally {
            parent.close();
        }
    }

    @Test
    void aRunWhoseProcessIsKilledInsideTheApprovedStepEndsInterruptedAndNothingIsReRun() throws Exception {
        String url = newDatabase(dir);
        ShiftedClock clock = new ShiftedClock();
        AtomicInteger parentWrites = new AtomicInteger();
        AtomicInteger parentReads = new AtomicInteger();
        Parent parent = new Parent(url, clock, parentWrites, parentReads);
        try {
            String id = parent.gate().executions().start(CrashHost.context(), CrashHost.PROGRAM, "{}").executionId();
            String approved = parent.gate().executions().find(id).orElseThrow().pendingCallId();
            if (oneProcessAtATime()) {
                parent.close();
            }

            String executing = runChildUntilKilledInsideATool(url, "approve", id, Long.toString(CHILD_TIMEOUT.toMillis()), "write");
            assertThat(executing).as("the child was inside the approved step").isEqualTo(approved);

            if (oneProcessAtATime()) {
                parent = new Parent(url, clock, parentWrites, parentReads);
            }
            assertThat(parent.gate().executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
            CallRecord claimed = parent.gate().findCall(approved).orElseThrow();
            assertThat(claimed.status()).as("the claim survived the kill").isEqualTo(CallStatus.APPLYING);
            assertThat(claimed.appliedBy()).isEqualTo(PrincipalRef.of(CrashHost.OPERATOR));
            assertThat(claimed.outcomeDueAt()).isAfterOrEqualTo(claimed.appliedAt().plus(CHILD_TIMEOUT));

            assertThat(parent.gate().sweep().interrupted()).as("not due yet").isZero();
            assertThat(parent.gate().executions().find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
            clock.shift(Duration.between(Instant.now(), claimed.outcomeDueAt()).plusSeconds(1));
            assertThat(parent.gate().sweep().interrupted()).isEqualTo(1);
            assertThat(parent.gate().findCall(approved).orElseThrow().status()).isEqualTo(CallStatus.INTERRUPTED);
            clock.shift(QUIET.plusSeconds(5)); // the interruption was the run's last activity
            parent.gate().sweep();

            ExecutionRecord run = parent.gate().executions().find(id).orElseThrow();
            assertThat(run.status()).isEqualTo(ExecutionStatus.INTERRUPTED);
            assertThat(run.error()).contains("step 2").contains("in doubt");
            assertThat(parent.gate().findCall(approved).orElseThrow().status()).as("left for an operator")
                    .isEqualTo(CallStatus.INTERRUPTED);
            assertThat(parent.gate().executions().steps(id)).extracting(CallRecord::status)
                    .containsExactly(CallStatus.EXECUTED, CallStatus.INTERRUPTED);
            assertThat(parentWrites).as("the step in doubt never ran again").hasValue(0);
            assertThat(parentReads).as("only the start's read ran here").hasValue(1);
            parent.gate().sweep();
            assertThat(parentWrites).hasValue(0);
        } finally {
            parent.close();
        }
    }

    /**
     * Starts the child on the test JVM's class path with {@code url} and {@code args}, waits (bounded) until
     * it prints that it is inside a tool, kills it with SIGKILL, and returns the call id it printed. The
     * child is killed in any case; its stderr is in every failure message.
     */
    private String runChildUntilKilledInsideATool(String url, String... args) throws Exception {
        Path stderr = dir.resolve("child-stderr.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                CrashHost.class.getName(), url));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command)
                .redirectError(stderr.toFile())
                .start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<String> output = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading the child's output failed: " + e + ")");
            }
        }, "crash-child-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            long deadline = System.nanoTime() + CHILD_START.toNanos();
            while (true) {
                String line = lines.poll(200, TimeUnit.MILLISECONDS);
                if (line == null && !child.isAlive()) {
                    reader.join(5_000); // the rest of its output
                    line = lines.poll();
                    if (line == null) {
                        throw new AssertionError("the child exited (code " + child.exitValue() + ") before it reached the tool"
                                + childOutput(output, stderr));
                    }
                }
                if (line == null) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the child did not reach the tool within " + CHILD_START.toSeconds() + " s"
                                + childOutput(output, stderr));
                    }
                    continue;
                }
                output.add(line);
                if (line.startsWith(CrashHost.MARKER)) {
                    assertThat(child.isAlive()).as("the child is inside the tool").isTrue();
                    child.destroyForcibly();
                    assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child died of SIGKILL" + childOutput(output, stderr)).isTrue();
                    assertThat(child.exitValue()).as("killed, not exited" + childOutput(output, stderr)).isNotZero().isNotEqualTo(3);
                    return line.substring(CrashHost.MARKER.length()).trim();
                }
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String childOutput(List<String> stdout, Path stderr) {
        String err;
        try {
            err = Files.exists(stderr) ? Files.readString(stderr) : "";
        } catch (IOException e) {
            err = "(unreadable: " + e + ")";
        }
        return "\n--- child stdout ---\n" + String.join("\n", stdout) + "\n--- child stderr ---\n"
                + (err.length() > 8000 ? "..." + err.substring(err.length() - 8000) : err);
    }

    /** The test JVM's host: its own store (on a clock the test can move forward) and gate. */
    private static final class Parent implements AutoCloseable {

        private final JdbcStore store;
        private final Toolgate gate;
        private final List<ToolCallEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        private boolean closed;

        Parent(String url, Clock clock, AtomicInteger executions, AtomicInteger reads) {
            this.store = JdbcStore.builder().url(url).poolSize(2).clock(clock).build();
            this.gate = CrashHost.gate(store, CHILD_TIMEOUT, callId -> executions.incrementAndGet(),
                    callId -> reads.incrementAndGet(), events::add);
        }

        JdbcStore store() {
            return store;
        }

        Toolgate gate() {
            return gate;
        }

        /** What this instance's listener heard (only its own sweeps: a fresh instance hears only what it does). */
        List<ToolCallEvent> events() {
            return events.stream().filter(e -> e.status() != CallStatus.PROPOSED).toList();
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                gate.close();
                store.close();
            }
        }
    }
}
