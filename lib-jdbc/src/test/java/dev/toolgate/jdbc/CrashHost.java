package dev.toolgate.jdbc;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.gate.CallContext;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * The host of the crash test, in the test JVM and in the child JVM it kills: a gate with one mutating
 * tool, {@value #TOOL}, whose execution each side decides. Run as a program it is the child: it opens
 * a {@link JdbcStore} on the URL it is given, applies the token it is given, prints
 * {@value #MARKER} and the call's id from inside the tool, and blocks there until it is killed.
 */
final class CrashHost {

    static final String TOOL = "vault.write";
    static final String MARKER = "TOOLGATE-CRASH-TEST executing ";
    static final Principal WRITER = Principal.user("writer", "vault.write");

    /** The tool's input. */
    record Entry(String key, String value) {
    }

    private CrashHost() {
    }

    static CallContext context() {
        return CallContext.of(WRITER).withTenant("acme").withSession("crash");
    }

    /** An operator of the tenant, who sees calls in doubt. */
    static final Principal OPERATOR = Principal.user("ops", "vault.write", "toolgate.approvals.manage");

    /** A gate with the tool, whose execution runs {@code execution} (given the call id). */
    static Toolgate gate(ToolgateStore store, Duration executionTimeout, Consumer<String> execution) {
        return gate(store, executionTimeout, execution, event -> { });
    }

    /** The same, telling {@code listener} about calls. */
    static Toolgate gate(ToolgateStore store, Duration executionTimeout, Consumer<String> execution,
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
        return Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .store(store)
                .provider(ToolProvider.of("vault", write))
                .budget(ToolBudget.perPrincipal(1000, Duration.ofMinutes(1)))
                .executionTimeout(executionTimeout)
                .sweepInterval(Duration.ZERO)
                .listener(listener)
                .build();
    }

    /** The child: {@code <jdbc url> <token> <execution timeout in ms>}. */
    public static void main(String[] args) throws Exception {
        JdbcStore store = JdbcStore.builder().url(args[0]).poolSize(2).build();
        Toolgate gate = gate(store, Duration.ofMillis(Long.parseLong(args[2])), callId -> {
            System.out.println(MARKER + callId);
            System.out.flush();
            try {
                new CountDownLatch(1).await(); // inside the tool until the parent kills this JVM
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("the crash test's tool was interrupted before the kill", e);
            }
        });
        Object applied = gate.apply(context(), args[1]);
        System.out.println("TOOLGATE-CRASH-TEST apply returned, which it must not: " + applied);
        System.exit(3);
    }
}
