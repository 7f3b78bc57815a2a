package dev.toolgate.examples.bench;

import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Trivial tools, so the benchmark measures the gate and its store, not tool code. Plugin id {@code bench}. */
final class BenchTools {

    static final String RULE = "bench.use";
    /** A read on the caller's thread (the default). */
    static final String PING = "bench.ping";
    /** The same read, handed off to a tool thread of the gate ({@code onCallerThread(false)}). */
    static final String PING_HANDED_OFF = "bench.ping_handed_off";
    /** A mutation, its dry-run and execution on the caller's thread (the default). */
    static final String TOUCH = "bench.touch";
    /** The same mutation, its dry-run and execution handed off to tool threads of the gate. */
    static final String TOUCH_HANDED_OFF = "bench.touch_handed_off";

    /** A mutation's input. */
    record Touch(String key) {
    }

    final AtomicLong touches = new AtomicLong();

    ToolProvider provider() {
        return ToolProvider.of("bench", ping("ping", true), ping("ping_handed_off", false), touch("touch", true),
                touch("touch_handed_off", false));
    }

    /** The trivial read, on the caller's thread or handed off to a tool thread. */
    private static Tool<NoInput, Map<String, Boolean>> ping(String name, boolean onCallerThread) {
        return Tool.builder(name, NoInput.class).description("Answers pong").effect(Effect.READ).requires(RULE)
                .onCallerThread(onCallerThread)
                .execute((in, ctx) -> Map.of("pong", true)).build();
    }

    /** The trivial mutation, its dry-run and execution on the caller's thread or handed off. */
    private Tool<Touch, String> touch(String name, boolean onCallerThread) {
        return Tool.builder(name, Touch.class).description("Touches a key").effect(Effect.MUTATE).requires(RULE)
                .onCallerThread(onCallerThread)
                .dryRun((in, ctx) -> Preview.of("Touch " + in.key()))
                .execute((in, ctx) -> {
                    touches.incrementAndGet();
                    return "touched " + in.key();
                }).build();
    }
}
