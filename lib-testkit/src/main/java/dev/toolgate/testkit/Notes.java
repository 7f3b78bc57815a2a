package dev.toolgate.testkit;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The contract suite's test domain: a note book with tools of every effect, and counters that show
 * exactly how often each tool's code ran. Plugin id {@code notes}.
 */
public final class Notes {

    public static final String READ = "notes.note.read";
    public static final String WRITE = "notes.note.write";

    public record NoteQuery(Optional<String> prefix) {
    }

    public record NewNote(@JsonPropertyDescription("the note's id") String id,
                          @Size(min = 1, max = 200) String text) {
    }

    public record NoteEdit(String id, String text) {
    }

    public record NoteId(String id) {
    }

    public record Leak(int items) {
    }

    /**
     * Which {@link Error} a crashing tool throws: {@code stack_overflow}, {@code assertion},
     * {@code linkage} or {@code out_of_memory}; for {@code notes.brittle}, {@code phase} is
     * {@code dry_run} or {@code execute}.
     */
    public record Crash(String kind, String phase) {
    }

    private final Map<String, String> notes = new TreeMap<>();
    /** Executions of mutating tools (add, edit, purge). */
    public final AtomicInteger mutations = new AtomicInteger();
    /** Executions of {@code notes.hold} that entered its body; it then waits for {@link #release}. */
    public final java.util.concurrent.Semaphore held = new java.util.concurrent.Semaphore(0);
    /** Permits for {@code notes.hold} executions to finish. */
    public final java.util.concurrent.Semaphore release = new java.util.concurrent.Semaphore(0);
    /** Reverts run (of notes.add), in the order they ran. */
    public final AtomicInteger reverts = new AtomicInteger();
    public final List<String> revertOrder = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Dry-runs of any tool. */
    public final AtomicInteger dryRuns = new AtomicInteger();
    /** Executions of read tools. */
    public final AtomicInteger reads = new AtomicInteger();

    public synchronized Map<String, String> snapshot() {
        return Map.copyOf(notes);
    }

    /** Removes a note, as a change made outside the gate. */
    public synchronized void remove(String id) {
        notes.remove(id);
    }

    public synchronized void put(String id, String text) {
        notes.put(id, text);
    }

    public ToolProvider provider() {
        return ToolProvider.of("notes", list(), add(), edit(), purge(), slow(), fail(), leak(), crash(), brittle(), hold());
    }

    Tool<NoteQuery, Map<String, String>> list() {
        return Tool.builder("list", NoteQuery.class).description("List notes").effect(Effect.READ).requires(READ)
                .execute((q, ctx) -> {
                    reads.incrementAndGet();
                    synchronized (this) {
                        Map<String, String> out = new TreeMap<>(notes);
                        out.keySet().removeIf(k -> q.prefix().map(p -> !k.startsWith(p)).orElse(false));
                        return out;
                    }
                }).build();
    }

    Tool<NewNote, String> add() {
        return Tool.builder("add", NewNote.class).description("Add a note").effect(Effect.MUTATE).requires(WRITE)
                .dryRun((in, ctx) -> {
                    dryRuns.incrementAndGet();
                    if (in.text().contains("forbidden")) {
                        throw new ToolValidationException("/text", "the word 'forbidden' is not allowed in a note");
                    }
                    String id = in.id().toLowerCase(java.util.Locale.ROOT); // ids are stored in lower case
                    synchronized (this) {
                        if (notes.containsKey(id)) {
                            throw new ToolValidationException("/id", "note '" + id + "' exists already");
                        }
                    }
                    Preview<NewNote> preview = Preview.of("Add note " + id);
                    return id.equals(in.id()) ? preview : preview.withPayload(new NewNote(id, in.text()));
                })
                .execute((in, ctx) -> {
                    mutations.incrementAndGet();
                    if (in.text().contains("explode")) {
                        throw new IllegalStateException("the note store refused " + in.id() + ": password=hunter2");
                    }
                    put(in.id(), in.text());
                    return "added " + in.id();
                })
                .revert((in, result, ctx) -> {
                    reverts.incrementAndGet();
                    revertOrder.add(in.id());
                    if (in.text().contains("unrevertable")) {
                        throw new IllegalStateException("cannot take back " + in.id() + ": password=hunter2");
                    }
                    synchronized (this) {
                        notes.remove(in.id());
                    }
                }).build();
    }

    Tool<NoteEdit, String> edit() {
        return Tool.builder("edit", NoteEdit.class).description("Change a note's text").effect(Effect.MUTATE).requires(WRITE)
                .dryRun((in, ctx) -> {
                    dryRuns.incrementAndGet();
                    String before;
                    synchronized (this) {
                        before = notes.get(in.id());
                    }
                    if (before == null) {
                        throw new ToolValidationException("/id", "no note '" + in.id() + "'");
                    }
                    return Preview.<NoteEdit>of("Edit note " + in.id())
                            .withDiff(Map.of("id", in.id(), "text", before), Map.of("id", in.id(), "text", in.text()));
                })
                .execute((in, ctx) -> {
                    mutations.incrementAndGet();
                    put(in.id(), in.text());
                    return "edited " + in.id();
                }).build();
    }

    Tool<NoteId, String> purge() {
        return Tool.builder("purge", NoteId.class).description("Delete a note for good").effect(Effect.DESTRUCTIVE)
                .requires(WRITE)
                .dryRun((in, ctx) -> {
                    dryRuns.incrementAndGet();
                    return Preview.of("Delete note " + in.id());
                })
                .execute((in, ctx) -> {
                    mutations.incrementAndGet();
                    synchronized (this) {
                        notes.remove(in.id());
                    }
                    return "purged " + in.id();
                }).build();
    }

    Tool<NoteQuery, String> slow() {
        return Tool.builder("slow", NoteQuery.class).description("A read that hangs").effect(Effect.READ).requires(READ)
                .timeout(Duration.ofMillis(200))
                .execute((q, ctx) -> {
                    Thread.sleep(10_000);
                    return "never";
                }).build();
    }

    Tool<NoteQuery, Object> fail() {
        return Tool.builder("fail", NoteQuery.class).description("A read that fails").effect(Effect.READ).requires(READ)
                .execute((q, ctx) -> {
                    throw new IllegalStateException("backend refused: password=hunter2 token=abc123");
                }).build();
    }

    Tool<Leak, Map<String, Object>> leak() {
        return Tool.builder("leak", Leak.class).description("A read returning secrets and bulk").effect(Effect.READ)
                .requires(READ)
                .execute((in, ctx) -> {
                    List<String> bulk = java.util.stream.IntStream.range(0, in.items()).mapToObj(i -> "item-" + i).toList();
                    Map<String, Object> result = new java.util.LinkedHashMap<>();
                    result.put("apiKey", "sk-live-123");
                    result.put("nested", Map.of("password", "hunter2", "ok", "visible"));
                    result.put("items", bulk);
                    return result;
                }).build();
    }

    /** The {@link Error} named by {@code kind}, as a JVM would throw it. */
    public static Error error(String kind) {
        return switch (kind) {
            case "stack_overflow" -> new StackOverflowError("simulated deep recursion");
            case "assertion" -> new AssertionError("simulated broken invariant");
            case "linkage" -> new NoClassDefFoundError("com/example/Missing");
            case "out_of_memory" -> new OutOfMemoryError("simulated: Java heap space");
            default -> throw new IllegalArgumentException("unknown error kind " + kind);
        };
    }

    Tool<Crash, Object> crash() {
        return Tool.builder("crash", Crash.class).description("A read whose code throws an Error").effect(Effect.READ)
                .requires(READ)
                .execute((in, ctx) -> {
                    reads.incrementAndGet();
                    throw error(in.kind());
                }).build();
    }

    Tool<Crash, Object> brittle() {
        return Tool.builder("brittle", Crash.class).description("A mutation whose code throws an Error").effect(Effect.MUTATE)
                .requires(WRITE)
                .dryRun((in, ctx) -> {
                    dryRuns.incrementAndGet();
                    if ("dry_run".equals(in.phase())) {
                        throw error(in.kind());
                    }
                    return Preview.of("Run brittle code (" + in.kind() + ")");
                })
                .execute((in, ctx) -> {
                    mutations.incrementAndGet();
                    throw error(in.kind());
                }).build();
    }

    Tool<NoteId, String> hold() {
        return Tool.builder("hold", NoteId.class).description("A mutation that waits for the test to release it")
                .effect(Effect.MUTATE).requires(WRITE)
                .timeout(Duration.ofSeconds(20))
                .dryRun((in, ctx) -> {
                    String current;
                    synchronized (this) {
                        current = notes.get(in.id());
                    }
                    // an explicit precondition: the note as it is now
                    return Preview.<NoteId>of("Hold " + in.id()).withPrecondition(Map.of("id", in.id(), "text",
                            String.valueOf(current)));
                })
                .execute((in, ctx) -> {
                    mutations.incrementAndGet();
                    held.release();
                    if (!release.tryAcquire(15, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    put(in.id(), "held");
                    return "held " + in.id();
                }).build();
    }
}
