package dev.toolgate.jdbc;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.Program;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * The host of the crash tests, in the test JVM and in the child JVM it kills: a gate with a mutating
 * tool, {@value #TOOL}, a read tool, {@value #READ_TOOL}, whose executions each side decides, and a
 * program, {@value #PROGRAM}, that reads, writes (which needs consent) and reads again. Run as a
 * program it is the child: it opens a {@link JdbcStore} on the URL it is given and either applies a
 * token or approves the pending step of a run; inside the tool it is told to stop in, it prints
 * {@value #MARKER} and the call's id and blocks there until it is killed.
 */
final class CrashHost {

    static final String TOOL = "vault.write";
    static final String READ_TOOL = "vault.read";
    static final String PROGRAM = "vault.batch";
    static final String MARKER = "TOOLGATE-CRASH-TEST executing ";
    static final Principal WRITER = Principal.user("writer", "vault.write", "vault.read");

    /** The tool's input. */
    record Entry(String key, String value) {
    }

    /** The read tool's input. */
    record Key(String key) {
    }

    /** Reads k1, writes it (a step that needs consent), reads it again; returns what each step said. */
    static final Program BATCH = run -> {
        String before = run.call(READ_TOOL, Map.of("key", "k1")).asString();
        String written = run.call(TOOL, Map.of("key", "k1", "value", "v1")).asString();
        String after = run.call(READ_TOOL, Map.of("key", "k1")).asString();
        return Map.of("before", before, "written", written, "after", after);
    };

    private CrashHost() {
    }

    static CallContext context() {
        return CallContext.of(WRITER).withTenant("acme").withSession("crash");
    }

    /** An operator of the tenant, who sees calls in doubt and approves steps. */
    static final Principal OPERATOR = Principal.user("ops", "vault.write", "vault.read", "toolgate.approvals.manage");

    static CallContext operator() {
        return CallContext.of(OPERATOR).withTenant("acme").withSession("crash-ops");
    }

    /** A gate with the tools and the program, whose write runs {@code execution} (given the call id). */
    static Toolgate gate(ToolgateStore store, Duration executionTimeout, Consumer<String> execution) {
        return gate(store, executionTimeout, execution, callId -> { }, event -> { });
    }

    /** The same, telling {@code listener} about calls. */
    static Toolgate gate(ToolgateStore store, Duration executionTimeout, Consumer<String> execution,
                         dev.toolgate.audit.ToolCallListener listener) {
        return gate(store, executionTimeout, execution, callId -> { }, listener);
    }

    /** The same, whose read runs {@code reads} (given the call id). */
    static Toolgate gate(ToolgateStore store, Duration executionTimeout, Consumer<String> execution, Consumer<String> reads,
                         dev.toolgate.audit.ToolCallListener listener) {
        Tool<Entry, String> write = Tool.builder("write", Entry.class)
                .description("Write an entry into the vault")
                .effect(Effect.MUTATE)
                .requires("vault.write")
                .dryRun((in, ctx) -> Preview.of("Write " + in.key()))
                .execute((in, ctx) -> {
                    execution.accept(ctx.callId());
                    return "written " + in.key();
                })
                .build();
        Tool<Key, String> read = Tool.builder("read", Key.class)
                .description("Read an entry of the vault")
                .effect(Effect.READ)
                .requires("vault.read")
                .execute((in, ctx) -> {
                    reads.accept(ctx.callId());
                    return "read " + in.key();
                })
                .build();
        return Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .store(store)
                .provider(ToolProvider.of("vault", write, read))
                .program(PROGRAM, BATCH)
                .budget(ToolBudget.perPrincipal(1000, Duration.ofMinutes(1)))
                .executionTimeout(executionTimeout)
                .sweepInterval(Duration.ZERO)
                .listener(listener)
                .build();
    }

    /**
     * The child: {@code <jdbc url> apply <token> <execution timeout in ms>}, or
     * {@code <jdbc url> approve <execution id> <execution timeout in ms> <write|read>}: approves step 2
     * of the run as the operator and stops inside the write (the approved step) or inside the next read.
     */
    public static void main(String[] args) throws Exception {
        JdbcStore store = JdbcStore.builder().url(args[0]).poolSize(2).build();
        Duration timeout = Duration.ofMillis(Long.parseLong(args[3]));
        boolean inRead = args[1].equals("approve") && args[4].equals("read");
        Consumer<String> block = CrashHost::blockUntilKilled;
        Toolgate gate = gate(store, timeout, inRead ? callId -> { } : block, inRead ? block : callId -> { }, event -> { });
        Object returned = switch (args[1]) {
            case "apply" -> gate.apply(context(), args[2]);
            case "approve" -> gate.executions().approve(operator(), args[2], 2);
            default -> throw new IllegalArgumentException("unknown command " + args[1]);
        };
        System.out.println("TOOLGATE-CRASH-TEST " + args[1] + " returned, which it must not: " + returned);
        System.exit(3);
    }

    private static void blockUntilKilled(String callId) {
        System.out.println(MARKER + callId);
        System.out.flush();
        try {
            new CountDownLatch(1).await(); // inside the tool until the parent kills this JVM
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the crash test's tool was interrupted before the kill", e);
        }
    }
}
