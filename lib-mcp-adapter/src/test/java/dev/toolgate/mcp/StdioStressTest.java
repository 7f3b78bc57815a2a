package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The stdio scenario that once listed 2 of 5 tools, a thousand times in one JVM under CPU
 * contention (a busy thread per core): start a server, initialize, then a burst of concurrent
 * {@code tools/list} and {@code tools/call} requests, each of which must be answered, every list
 * complete. Not part of the default build (tag {@code stress}); run it with
 * {@code ./mvnw -pl lib-mcp-adapter -am verify -Pstress} (see the module README).
 *
 * <p>It guards two races, both fixed in the adapter: the SDK's list filter ran on another thread
 * per tool, and Reactor's {@code filterWhen} silently drops an element when such a predicate
 * completes while the draining thread has already moved on (a partial {@code tools/list}); and the
 * SDK's stdio transport drops a message, and stops reading, when two threads send at once and one
 * waits more than 100 ms for the other (a request never answered).
 */
@Tag("stress")
class StdioStressTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"stress\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    private static final int EXTRA_TOOLS = 35;
    private static final int LISTS = 12;
    private static final int CALLS = 4;
    private static final long ANSWER_SECONDS = 20;

    @Test
    void startInitializeAndBurstAThousandTimesUnderCpuContention() throws Exception {
        int iterations = Integer.getInteger("toolgate.stress.iterations", 1000);
        List<Thread> burners = new ArrayList<>();
        Burner burner = new Burner();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread thread = new Thread(burner, "stress-burner-" + i);
            thread.setDaemon(true);
            thread.start();
            burners.add(thread);
        }
        try (Toolgate gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited())) {
            // a longer list gives the race more room: every tool is one more element to filter
            List<Tool<?, ?>> extra = new ArrayList<>();
            for (int i = 0; i < EXTRA_TOOLS; i++) {
                extra.add(Tool.builder("t" + i, NoInput.class).description("Read something.").effect(Effect.READ)
                        .requires("ticket.read").execute((in, ctx) -> "ok").build());
            }
            gate.registry().register(ToolProvider.of("bulk", extra.toArray(Tool<?, ?>[]::new)));
            List<String> expected = new ArrayList<>(Fixtures.CAROL_TOOLS);
            for (int i = 0; i < EXTRA_TOOLS; i++) {
                expected.add("bulk.t" + i);
            }
            for (int i = 0; i < iterations; i++) {
                scenario(gate, expected, i);
            }
        } finally {
            burner.stop = true;
            for (Thread thread : burners) {
                thread.join(5_000);
            }
        }
    }

    /**
     * The SDK's stdio transport, behind the adapter's serialization, sending from four threads at once
     * under CPU contention: every message reaches standard output, whole and on its own line.
     */
    @Test
    void concurrentSendsAreAllWritten() throws Exception {
        int perThread = Integer.getInteger("toolgate.stress.sends", 5_000);
        int threads = 4;
        Burner burner = new Burner();
        List<Thread> burners = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread thread = new Thread(burner, "stress-burner-" + i);
            thread.setDaemon(true);
            thread.start();
            burners.add(thread);
        }
        Pipe toServer = Pipe.open();
        Pipe fromServer = Pipe.open();
        StdioSerialSends provider = new StdioSerialSends(new StdioServerTransportProvider(McpJsonDefaults.getMapper(),
                Channels.newInputStream(toServer.source()), Channels.newOutputStream(fromServer.sink())));
        AtomicReference<McpServerTransport> transport = new AtomicReference<>();
        provider.setSessionFactory(created -> {
            transport.set(created);
            return null; // no session: nothing is read in this test, only sent
        });
        AtomicLong written = new AtomicLong();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(Channels.newInputStream(fromServer.source()),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (Json.parse(line).path("method").asString().equals("stress/ping")) {
                        written.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "stress-reader");
        reader.setDaemon(true);
        reader.start();
        List<Thread> senders = new ArrayList<>();
        AtomicLong failed = new AtomicLong();
        try {
            for (int t = 0; t < threads; t++) {
                Thread sender = new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        try {
                            transport.get().sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                                    "stress/ping", Map.of("i", i))).block(Duration.ofSeconds(30));
                        } catch (RuntimeException e) {
                            failed.incrementAndGet();
                        }
                    }
                }, "stress-sender-" + t);
                sender.start();
                senders.add(sender);
            }
            for (Thread sender : senders) {
                sender.join(TimeUnit.MINUTES.toMillis(10));
            }
            long expected = (long) threads * perThread;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (written.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(50); // bounded poll: the reader counts lines on its own thread
            }
            assertThat(failed.get()).as("sends that failed").isZero();
            assertThat(written.get()).as("messages on standard output").isEqualTo(expected);
        } finally {
            burner.stop = true;
            for (Thread thread : burners) {
                thread.join(5_000);
            }
            provider.close();
        }
    }

    private static void scenario(Toolgate gate, List<String> expected, int iteration) throws Exception {
        Pipe toServer = Pipe.open();
        Pipe fromServer = Pipe.open();
        ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, Fixtures.CAROL)
                .streams(Channels.newInputStream(toServer.source()), Channels.newOutputStream(fromServer.sink()))
                .start();
        Lines lines = new Lines(new BufferedReader(new InputStreamReader(Channels.newInputStream(fromServer.source()),
                StandardCharsets.UTF_8)));
        Thread reader = new Thread(lines, "stress-reader");
        reader.setDaemon(true);
        reader.start();
        try (OutputStream in = Channels.newOutputStream(toServer.sink())) {
            send(in, INIT);
            assertThat(lines.answer(1, iteration).path("result").path("protocolVersion").asString()).isEqualTo("2025-11-25");
            StringBuilder burst = new StringBuilder(INITIALIZED).append('\n');
            for (int k = 0; k < LISTS; k++) {
                burst.append("{\"jsonrpc\":\"2.0\",\"id\":").append(100 + k).append(",\"method\":\"tools/list\"}\n");
            }
            for (int k = 0; k < CALLS; k++) {
                burst.append("{\"jsonrpc\":\"2.0\",\"id\":").append(200 + k)
                        .append(",\"method\":\"tools/call\",\"params\":{\"name\":\"ticket.get\",\"arguments\":{\"id\":\"T-1\"}}}\n");
            }
            send(in, burst.toString());
            for (int k = 0; k < LISTS; k++) {
                JsonNode tools = lines.answer(100 + k, iteration).path("result").path("tools");
                List<String> names = new ArrayList<>();
                tools.forEach(tool -> names.add(tool.path("name").asString()));
                assertThat(names).as("tools/list %d in iteration %d", 100 + k, iteration)
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
            for (int k = 0; k < CALLS; k++) {
                JsonNode result = lines.answer(200 + k, iteration).path("result");
                assertThat(result.path("structuredContent").path("status").asString())
                        .as("tools/call %d in iteration %d: %s", 200 + k, iteration, result).isEqualTo("executed");
            }
        } finally {
            server.close();
            reader.interrupt();
        }
    }

    private static void send(OutputStream in, String lines) throws IOException {
        in.write((lines.endsWith("\n") ? lines : lines + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Spins until told to stop: one per core, so every thread of the server competes for the CPU. */
    private static final class Burner implements Runnable {

        volatile boolean stop;

        @Override
        public void run() {
            while (!stop) {
                // busy
            }
        }
    }

    /** Reads the server's output lines on its own thread, so a missing answer fails instead of hanging. */
    private static final class Lines implements Runnable {

        private final BufferedReader out;
        private final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        private final Map<Integer, JsonNode> byId = new HashMap<>();

        Lines(BufferedReader out) {
            this.out = out;
        }

        @Override
        public void run() {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    messages.add(Json.parse(line));
                }
            } catch (IOException e) {
                // the pipe closed with the server
            }
        }

        JsonNode answer(int id, int iteration) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
            while (!byId.containsKey(id)) {
                JsonNode message = messages.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (message == null) {
                    fail("iteration %d: no answer to request %d within %d s (answered: %s)", iteration, id, ANSWER_SECONDS,
                            byId.keySet());
                }
                if (message.has("id") && !message.has("method")) {
                    byId.put(message.path("id").asInt(), message);
                }
            }
            return byId.get(id);
        }
    }
}
