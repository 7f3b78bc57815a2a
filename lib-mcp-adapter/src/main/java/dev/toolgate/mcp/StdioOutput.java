package dev.toolgate.mcp;

import dev.toolgate.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import tools.jackson.databind.JsonNode;

/**
 * Standard output for the SDK's stdio transport, counting the responses written so that the end of
 * standard input can wait for the answers to requests still running (the SDK stops writing once it
 * sees the end of its input). Writers synchronize on this object.
 */
final class StdioOutput extends OutputStream {

    private final OutputStream out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private long responses;

    StdioOutput(OutputStream out) {
        this.out = out;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        out.write(b);
        track(b);
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
        out.write(bytes, offset, length);
        for (int i = offset; i < offset + length; i++) {
            track(bytes[i]);
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }

    /** Writes a whole message line that answers no request the SDK saw (a rejected line). */
    synchronized void writeUncounted(byte[] message) throws IOException {
        out.write(message);
        out.write('\n');
        out.flush();
    }

    private void track(int b) {
        if (b != '\n') {
            line.write(b);
            return;
        }
        try {
            JsonNode message = Json.parse(line.toString(java.nio.charset.StandardCharsets.UTF_8));
            if (message.hasNonNull("id") && !message.has("method")) {
                responses++;
                notifyAll();
            }
        } catch (RuntimeException e) {
            // not a message we count
        }
        line.reset();
    }

    /** Waits until at least {@code expected} responses were written, or the timeout passes. */
    synchronized void awaitResponses(long expected, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (responses < expected) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
