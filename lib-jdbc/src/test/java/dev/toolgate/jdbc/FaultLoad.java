package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.BudgetLimit;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A mixed load on one store while a fault is injected, and the checks of what it left: reads, proposals
 * and their applies, and calls of a principal held to a small budget, from several threads, each call
 * timed and its answer kept. Afterwards: every call answered as a success has its audit row, no tool ran
 * twice for one call, a claim cut by the fault is in doubt (never applied without its tool having run),
 * the budget admitted no more than its cap, and every failure was a typed store error.
 */
final class FaultLoad implements AutoCloseable {

    static final Principal READER = Principal.user("reader", "fault.read");
    static final Principal WRITER = Principal.user("writer", "fault.read", "fault.write");
    static final Principal METERED = Principal.user("metered", "fault.read");
    /** The metered principal's cap; every other principal but the runs' ({@link FaultRuns#RUNNER_CAP}) has none. */
    static final int CAP = 60;

    /** A call's answer: what it was, when it started and ended (monotonic nanos), and how it ended. */
    record Answer(String kind, long start, long end, String callId, Throwable error) {
        long millis() {
            return (end - start) / 1_000_000;
        }
    }

    final Toolgate gate;
    final Map<String, AtomicInteger> runsByCall = new ConcurrentHashMap<>();
    final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
    final Queue<String> refusedApplies = new ConcurrentLinkedQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    private final String url;
    /** The durable runs of the load, and their checks. */
    final FaultRuns runs;

    /** A load on {@code store}, whose database {@code url} the checks read directly. */
    FaultLoad(JdbcStore store, String url) {
        this.url = url;
        this.runs = new FaultRuns(this);
        this.gate = gateOn(store);
    }

    /**
     * A gate on {@code store} with the load's tools and program: the load's own, or another instance's on
     * the same database (the tools, and so their counters, are shared).
     */
    Toolgate gateOn(JdbcStore store) {
        Tool<NoInput, String> read = Tool.builder("read", NoInput.class).description("a read").effect(Effect.READ)
                .requires("fault.read").execute((in, ctx) -> {
                    ran(ctx.callId());
                    return "read";
                }).build();
        Tool<Note, String> write = Tool.builder("write", Note.class).description("a write").effect(Effect.MUTATE)
                .requires("fault.write").execute((in, ctx) -> {
                    ran(ctx.callId());
                    return "wrote " + in.n();
                }).build();
        BudgetLimit cap = BudgetLimit.of(CAP, Duration.ofMinutes(5));
        BudgetLimit runs = BudgetLimit.of(FaultRuns.RUNNER_CAP, Duration.ofMinutes(5));
        List<Tool<?, ?>> tools = new ArrayList<>(List.of(read, write));
        tools.addAll(this.runs.tools());
        return Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .provider(ToolProvider.of("fault", tools.toArray(Tool[]::new)))
                .program(FaultRuns.PROGRAM, this.runs.program())
                .budget(principal -> principal.id().equals(METERED.id()) ? cap
                        : principal.id().equals(FaultRuns.RUNNER.id()) ? runs : null)
                .maxPendingPerSession(100_000).sweepInterval(Duration.ZERO).build();
    }

    /** Counts one run of a tool for the call {@code callId}. */
    void ran(String callId) {
        runsByCall.computeIfAbsent(callId, id -> new AtomicInteger()).incrementAndGet();
    }

    /** The write tool's input. */
    record Note(long n) {
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withTenant("acme").withSession("s-" + principal.id());
    }

    /**
     * Starts {@code readers} reading threads, {@code writers} proposing-and-applying threads, one thread
     * starting durable runs and approving their paused step ({@link FaultRuns}) and one metered thread.
     */
    void start(int readers, int writers) {
        spawn("runs-0", runs::runOnce);
        spawn("runs-1", runs::runOnce);
        for (int i = 0; i < readers; i++) {
            spawn("reader-" + i, () -> timed("read", () -> ((Executed) gate.call(ctx(READER), "fault.read", "{}")).callId()));
        }
        for (int i = 0; i < writers; i++) {
            spawn("writer-" + i, this::proposeAndApply);
        }
        spawn("metered", () -> {
            Answer answer = timed("metered", () -> ((Executed) gate.call(ctx(METERED), "fault.read", "{}")).callId());
            if (answer.error() instanceof BudgetExceededException) {
                sleep(20); // held at the cap: ask again now and then, as a client that obeys Retry-After would not
            }
        });
    }

    private void proposeAndApply() {
        String[] token = {null};
        Answer proposed = timed("propose", () -> {
            Proposal proposal = (Proposal) gate.call(ctx(WRITER), "fault.write", "{\"n\":" + sequence.incrementAndGet() + "}");
            token[0] = proposal.token();
            return proposal.callId();
        });
        if (proposed.error() == null) {
            Answer applied = timed("apply", () -> gate.apply(ctx(WRITER), token[0]).callId());
            if (applied.error() instanceof StoreUnavailableException) {
                refusedApplies.add(token[0]);
            }
        }
    }

    private void spawn(String name, Runnable step) {
        Thread thread = new Thread(() -> {
            while (running) {
                step.run();
            }
        }, "fault-load-" + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    Answer timed(String kind, java.util.function.Supplier<String> call) {
        long start = System.nanoTime();
        Answer answer;
        try {
            String id = call.get();
            answer = new Answer(kind, start, System.nanoTime(), id, null);
        } catch (RuntimeException e) {
            answer = new Answer(kind, start, System.nanoTime(), null, e);
            if (e instanceof StoreUnavailableException) {
                sleep(20); // a client that backs off a little: the figures count calls, not spins
            }
        }
        answers.add(answer);
        return answer;
    }

    /** Stops the threads and waits for them (each call is bounded, so this is too). */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(30_000);
            assertThat(thread.isAlive()).as("%s ended", thread.getName()).isFalse();
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        gate.close();
    }

    /** The first successful call that started after {@code nanos}, in milliseconds after it; -1 if none. */
    long firstSuccessAfter(long nanos) {
        long first = answers.stream().filter(a -> a.error() == null && a.start() >= nanos).mapToLong(a -> a.end() - nanos)
                .min().orElse(-1_000_000);
        return first / 1_000_000;
    }

    /** Figures of the run and the checks every run must pass; returns the figures as one line. */
    Figures check() {
        List<Answer> all = new ArrayList<>(answers);
        // every failure is a typed error: the store's, or the budget's
        List<Answer> untyped = all.stream().filter(a -> a.error() != null && !(a.error() instanceof StoreUnavailableException)
                && !(a.error() instanceof BudgetExceededException)).toList();
        assertThat(untyped).as("untyped failures: %s", untyped.stream().map(a -> String.valueOf(a.error())).distinct().toList())
                .isEmpty();
        // nothing lost: every success has its audit row, in the status it was answered with
        int lost = 0;
        for (Answer a : all) {
            if (a.error() != null || a.callId() == null) {
                continue; // a failure, or a run's answer (FaultRuns checks those)
            }
            CallRecord record = gate.findCall(a.callId()).orElse(null);
            if (record == null) {
                lost++;
                continue;
            }
            CallStatus expected = switch (a.kind()) {
                case "read", "metered" -> CallStatus.EXECUTED;
                case "apply" -> CallStatus.APPLIED;
                default -> null;
            };
            if (expected != null) {
                assertThat(record.status()).as("call %s answered %s", a.callId(), a.kind()).isEqualTo(expected);
            }
        }
        // applies refused by the fault, tried again now: applied at most once, or in doubt
        int retriedApplied = 0;
        int inDoubt = 0;
        for (String token : refusedApplies) {
            try {
                Applied applied = gate.apply(ctx(WRITER), token);
                retriedApplied++;
                assertThat(runsByCall.get(applied.callId())).hasValue(1);
            } catch (TokenAlreadyUsedException e) {
                inDoubt++; // claimed before the fault cut it: in doubt, for an operator; never run again
            }
        }
        // no doubles; no claim applied whose tool did not run; a tool that ran has its row applied or in doubt
        int doubles = (int) runsByCall.values().stream().filter(n -> n.get() > 1).count();
        for (Map.Entry<String, AtomicInteger> run : runsByCall.entrySet()) {
            CallRecord record = gate.findCall(run.getKey()).orElse(null);
            if (record != null && record.toolName().equals("fault.write")) {
                assertThat(record.status()).as("write %s ran", run.getKey()).isIn(CallStatus.APPLIED, CallStatus.APPLYING,
                        CallStatus.INTERRUPTED);
            }
        }
        for (String id : ids("SELECT id FROM toolgate_call WHERE status = 'applied'")) {
            assertThat(runsByCall.get(id)).as("applied call %s ran its tool", id).isNotNull().hasValue(1);
        }
        // the budget: never more than the cap, counted by answers and by audit rows
        long meteredOk = all.stream().filter(a -> a.kind().equals("metered") && a.error() == null).count();
        long meteredRows = ids("SELECT id FROM toolgate_call WHERE principal = 'user:" + METERED.id() + "'").size();
        assertThat(meteredOk).as("metered calls answered").isLessThanOrEqualTo(CAP);
        assertThat(meteredRows).as("metered calls recorded").isLessThanOrEqualTo(CAP);
        long refused = all.stream().filter(a -> a.error() instanceof StoreUnavailableException).count();
        // a call is one governed call; a run's answer (its start, an approval) is an attempt of several
        long longest = all.stream().filter(a -> !a.kind().startsWith("run-")).mapToLong(Answer::millis).max().orElse(0);
        long longestRun = all.stream().filter(a -> a.kind().startsWith("run-")).mapToLong(Answer::millis).max().orElse(0);
        Map<String, Long> longestByKind = new java.util.TreeMap<>();
        all.forEach(a -> longestByKind.merge(a.kind() + (a.error() == null ? "" : "!"), a.millis(), Math::max));
        System.err.println("FAULT longest answer by kind (! = refused): " + longestByKind);
        return new Figures(all.size(), refused, longest, longestRun, lost, doubles, inDoubt, retriedApplied, meteredOk,
                all.stream().filter(a -> a.error() instanceof StoreUnavailableException u).map(a ->
                        ((StoreUnavailableException) a.error()).fault()).distinct().toList());
    }

    List<String> ids(String sql) {
        List<String> ids = new ArrayList<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
             java.sql.ResultSet rs = c.createStatement().executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    /** What a run measured. */
    record Figures(int calls, long refused, long longestMillis, long longestRunMillis, int lost, int doubles, int inDoubt,
                   int retriedApplied, long meteredAdmitted, List<StoreFault> faults) {
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
