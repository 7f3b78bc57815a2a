package dev.toolgate.mcp;

import dev.toolgate.json.TextCap;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standard input for the SDK's stdio transport, with a guard in front: each line is checked with
 * {@link JsonRpc#check} first, and a line that is not one JSON-RPC message (or is too long) is
 * answered with a JSON-RPC error on standard output and dropped, instead of reaching the SDK, whose
 * reader stops serving at the first malformed line. Counts down {@link #eof()} at end of input.
 */
final class StdioInput extends InputStream {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** The rejection as logged: its id is the client's, so secret-looking values are masked, as HttpEdge's. */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    private final InputStream in;
    private final StdioOutput out;
    private final McpJsonMapper mapper;
    private final int maxLineBytes;
    private final CountDownLatch eof = new CountDownLatch(1);
    private byte[] pending = new byte[0];
    private int position;

    private long requests;
    private boolean initialized;
    private volatile boolean clientElicits;
    private volatile Route route;

    /** Takes some requests off the SDK's path (the catalog's methods); true if it took this one. */
    interface Route {
        boolean offer(JsonRpc.Checked checked, String text);
    }

    StdioInput(InputStream in, StdioOutput out, McpJsonMapper mapper, int maxLineBytes) {
        this.in = in instanceof java.io.BufferedInputStream ? in : new java.io.BufferedInputStream(in);
        this.out = out;
        this.mapper = mapper;
        this.maxLineBytes = maxLineBytes;
    }

    /** Requests that {@code route} takes (after {@code initialize}) are not handed to the SDK. */
    void route(Route route) {
        this.route = route;
    }

    /** Whether the client declared the elicitation capability in its {@code initialize}. */
    boolean clientElicits() {
        return clientElicits;
    }

    /** Released when standard input ends. */
    CountDownLatch eof() {
        return eof;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        while (position >= pending.length) {
            if (!nextLine()) {
                drain();
                eof.countDown();
                return -1;
            }
        }
        int n = Math.min(length, pending.length - position);
        System.arraycopy(pending, position, buffer, offset, n);
        position += n;
        return n;
    }

    /** Reads lines until one passes the check (queued with its newline); false at end of input. */
    private boolean nextLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        boolean tooLong = false;
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            if (line.size() < maxLineBytes) {
                line.write(b);
            } else {
                tooLong = true;
            }
        }
        if (b == -1 && line.size() == 0) {
            return false;
        }
        if (tooLong) {
            reject(JsonRpc.error(null, JsonRpc.INVALID_REQUEST,
                    "Invalid Request: the message is longer than " + maxLineBytes + " bytes", null));
            return true;
        }
        String text = line.toString(StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return true;
        }
        try {
            JsonRpc.Checked checked = JsonRpc.check(text);
            if (checked.kind() == JsonRpc.Kind.REQUEST) {
                requests++; // answered through the SDK's transport either way, so drain() counts it
                if (checked.isInitialize()) {
                    clientElicits = JsonRpc.declaresCapability(text, "elicitation");
                }
                initialized |= checked.isInitialize();
                Route taker = route;
                if (initialized && taker != null && !checked.isInitialize() && taker.offer(checked, text)) {
                    return true;
                }
            }
        } catch (JsonRpc.Invalid invalid) {
            reject(invalid.response());
            return true;
        }
        pending = (text + "\n").getBytes(StandardCharsets.UTF_8);
        position = 0;
        return true;
    }

    private void reject(Object error) throws IOException {
        LOG.warn("Rejected a malformed message on standard input: {}",
                TextCap.forLog(LOGGED.redactText(String.valueOf(error))));
        out.writeUncounted(mapper.writeValueAsBytes(error));
    }

    /**
     * At the end of input, waits (up to 30 seconds) until every request handed to the SDK has been
     * answered, because the SDK writes nothing more once it reads the end of its input.
     */
    private void drain() {
        try {
            out.awaitResponses(requests, Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        eof.countDown();
        in.close();
    }
}
