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
    static final String PING = "bench.ping";
    /** The same read, declared to run on the caller's thread (no hand-off to a tool thread). */
    static final String PING_HERE = "bench.ping_here";
    static final String TOUCH = "bench.touch";
    /** The same mutation, its dry-run and execution on the caller's thread. */
    static final String TOUCH_HERE = "bench.touch_here";

    /** A mutation's input. */
    record Touch(String key) {
    }

    final AtomicLong touches = new AtomicLong();

    ToolProvider provider() {
        Tool<NoInput, Map<String, Boolean>> ping = Tool.builder("ping", NoInput.class).description("Answers pong")
                .effect(Effect.READ).requires(RULE)
                .execute((in, ctx) -> Map.of("pong", true)).build();
        Tool<NoInput, Map<String, Boolean>> pingHere = Tool.builder("ping_here", NoInput.class)
                .description("Answers pong on the caller's thread").effect(Effect.READ).requires(RULE).onCallerThread(true)
                .execute((in, ctx) -> Map.of("pong", true)).build();
        Tool<Touch, String> touch = Tool.builder("touch", Touch.class).description("Touches a key")
                .effect(Effect.MUTATE).requires(RULE)
                .dryRun((in, ctx) -> Preview.of("Touch " + in.key()))
                .execute((in, ctx) -> {
                    touches.incrementAndGet();
                    return "touched " + in.key();
                }).build();
        Tool<Touch, String> touchHere = Tool.builder("touch_here", Touch.class)
                .description("Touches a key on the caller's thread").effect(Effect.MUTATE).requires(RULE).onCallerThread(true)
                .dryRun((in, ctx) -> Preview.of("Touch " + in.key()))
                .execute((in, ctx) -> {
                    touches.incrementAndGet();
                    return "touched " + in.key();
                }).build();
        return ToolProvider.of("bench", ping, pingHere, touch, touchHere);
    }
}
