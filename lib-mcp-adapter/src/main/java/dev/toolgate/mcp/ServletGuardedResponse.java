package dev.toolgate.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The response the SDK's servlet transport writes through, as the servlet endpoint sees it: it
 * notes the {@code Mcp-Session-Id} an {@code initialize} was answered with, and holds back the first
 * text written until the SDK flushes it, so that an answer that is the gate's rate-limit error
 * ({@link ToolgateMcpServer#RATE_LIMITED}) goes out as HTTP 429 with {@code Retry-After}, as on the
 * standalone server (its body stays what the SDK wrote: one JSON body or one SSE event). For a POST
 * it also holds back the SDK's {@link #flushBuffer()} until that first text: the SDK's transport (2.2)
 * commits an SSE answer's headers before its first event, which would send the status before the
 * answer is known. A GET's stream is committed at once, as the SDK asks.
 */
final class ServletGuardedResponse extends HttpServletResponseWrapper {

    private final McpJsonMapper mapper;
    private final Consumer<String> onSession;
    private final boolean holdCommit;
    private PrintWriter writer;
    /** True once the first text went out: commits pass from then on. */
    private volatile boolean released;

    /**
     * @param holdCommit true for a POST: the SDK's {@link #flushBuffer()} is held back until the first
     *                   text is flushed, so that its status can still become 429
     * @param onSession  told the session id an {@code initialize} is answered with, when the SDK sets
     *                   the header: before the answer can reach the client (whose next request may
     *                   already carry the id)
     */
    ServletGuardedResponse(HttpServletResponse response, McpJsonMapper mapper, boolean holdCommit, Consumer<String> onSession) {
        super(response);
        this.mapper = mapper;
        this.onSession = onSession;
        this.holdCommit = holdCommit;
    }

    @Override
    public void flushBuffer() throws IOException {
        if (holdCommit && !released) {
            return; // committed with the first text (FirstFlushWriter.flush), or when the container completes the response
        }
        super.flushBuffer();
    }

    @Override
    public void setHeader(String name, String value) {
        noteSession(name, value);
        super.setHeader(name, value);
    }

    @Override
    public void addHeader(String name, String value) {
        noteSession(name, value);
        super.addHeader(name, value);
    }

    private void noteSession(String name, String value) {
        if (HttpResponses.SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
            onSession.accept(value);
        }
    }

    @Override
    public synchronized PrintWriter getWriter() throws IOException {
        if (writer == null) {
            writer = new PrintWriter(new FirstFlushWriter(super.getWriter()));
        }
        return writer;
    }

    /** Buffers until the first flush, then looks at what was written once and passes everything on. */
    private final class FirstFlushWriter extends Writer {

        private final PrintWriter target;
        private StringBuilder held = new StringBuilder();

        FirstFlushWriter(PrintWriter target) {
            this.target = target;
        }

        @Override
        public void write(char[] chars, int offset, int length) {
            if (held != null) {
                held.append(chars, offset, length);
            } else {
                target.write(chars, offset, length);
            }
        }

        @Override
        public void flush() throws IOException {
            release();
            target.flush();
            if (target.checkError()) {
                throw new IOException("Client disconnected");
            }
        }

        @Override
        public void close() {
            release();
            target.close();
        }

        private void release() {
            if (held == null) {
                return;
            }
            String text = held.toString();
            held = null;
            released = true;
            Refusal refusal = refusal(text);
            if (refusal != null && !isCommitted()) {
                setStatus(refusal.status());
                if (refusal.retryAfterSeconds() > 0) {
                    ServletGuardedResponse.super.setHeader("Retry-After", String.valueOf(refusal.retryAfterSeconds()));
                }
            }
            target.write(text);
        }
    }

    /** An HTTP status for a refusal, with its {@code Retry-After} seconds (0: none). */
    record Refusal(int status, long retryAfterSeconds) {
    }

    /**
     * The HTTP status if {@code text} (a JSON body or SSE events) is first of all a JSON-RPC response with
     * the rate-limit error (429) or the store-unavailable error (503), else null.
     */
    Refusal refusal(String text) {
        if (text.contains(String.valueOf(ToolgateMcpServer.RATE_LIMITED))) {
            long seconds = errorSeconds(text, ToolgateMcpServer.RATE_LIMITED);
            return seconds > 0 ? new Refusal(429, seconds) : null;
        }
        if (text.contains(String.valueOf(ToolgateMcpServer.STORE_UNAVAILABLE))) {
            long seconds = errorSeconds(text, ToolgateMcpServer.STORE_UNAVAILABLE);
            return seconds < 0 ? null : new Refusal(503, seconds);
        }
        return null; // the common case, without parsing
    }

    /**
     * For a JSON-RPC response whose error has {@code code}: its {@code retryAfterSeconds} (at least 1 if
     * the error is retryable or has no data), 0 for a store error that is not retryable; -1 if
     * {@code text} is not such a response.
     */
    private long errorSeconds(String text, int errorCode) {
        String json = text.strip();
        if (!json.startsWith("{")) {
            int data = text.indexOf("data:");
            if (data < 0) {
                return -1;
            }
            int end = text.indexOf('\n', data);
            json = text.substring(data + 5, end < 0 ? text.length() : end).strip();
        }
        try {
            Map<?, ?> message = mapper.readValue(json, Map.class);
            if (message.get("error") instanceof Map<?, ?> error && error.get("code") instanceof Number code
                    && code.intValue() == errorCode && message.containsKey("id")) {
                if (error.get("data") instanceof Map<?, ?> details) {
                    if (details.get("retryAfterSeconds") instanceof Number seconds) {
                        return Math.max(1, seconds.longValue());
                    }
                    if (Boolean.FALSE.equals(details.get("retryable"))) {
                        return 0;
                    }
                }
                return 1;
            }
        } catch (IOException | RuntimeException e) {
            return -1; // not one JSON-RPC message: pass it on as it is
        }
        return -1;
    }
}
