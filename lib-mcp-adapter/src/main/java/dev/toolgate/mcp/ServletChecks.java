package dev.toolgate.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The servlet endpoint's checks of a request's headers and body, the standalone server's rules
 * ({@link HttpPost}, {@link HttpChecks}) applied before the SDK's servlet transport sees the request,
 * which would otherwise answer some of these cases with bare statuses, HTML error pages or errors
 * without the JSON-RPC envelope. Each check that fails answers the request and returns null or false.
 */
final class ServletChecks {

    private static final TypeRef<McpSchema.InitializeRequest> INITIALIZE = new TypeRef<>() {
    };

    /** A POST that passed: its message's shape and text, and the request with its body read (for the SDK to read again). */
    record Post(HttpServletRequest request, JsonRpc.Checked message, String text) {
    }

    private final McpJsonMapper mapper;
    private final int maxBodyBytes;

    ServletChecks(McpJsonMapper mapper, int maxBodyBytes) {
        this.mapper = mapper;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** GET: null after answering 406 if the client does not accept an event stream; else the request for the SDK. */
    HttpServletRequest get(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!HttpResponses.accepts(request.getHeader("Accept"), HttpResponses.TEXT_EVENT_STREAM)) {
            closeIfBodyUnread(request, response);
            sendError(response, 406, null, JsonRpc.INVALID_REQUEST, "Not Acceptable: the Accept header must list text/event-stream");
            return null;
        }
        return new CheckedRequest(request, null);
    }

    /**
     * POST: {@code Accept} (406), {@code Content-Type} (415), the body size (413), the JSON-RPC shape
     * (400), {@code initialize}'s params (400). Null after answering.
     */
    Post post(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String accept = request.getHeader("Accept");
        if (!HttpResponses.accepts(accept, HttpResponses.APPLICATION_JSON) || !HttpResponses.accepts(accept, HttpResponses.TEXT_EVENT_STREAM)) {
            closeIfBodyUnread(request, response);
            sendError(response, 406, null, JsonRpc.INVALID_REQUEST,
                    "Not Acceptable: the Accept header must list application/json and text/event-stream");
            return null;
        }
        String contentType = request.getContentType();
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).strip().startsWith(HttpResponses.APPLICATION_JSON)) {
            closeIfBodyUnread(request, response);
            sendError(response, 415, null, JsonRpc.INVALID_REQUEST, "Unsupported Media Type: send application/json");
            return null;
        }
        byte[] body = readBody(request);
        if (body == null) {
            response.setHeader("Connection", "close");
            sendError(response, 413, null, JsonRpc.INVALID_REQUEST, "Payload Too Large: the limit is " + maxBodyBytes + " bytes");
            return null;
        }
        String text = new String(body, StandardCharsets.UTF_8);
        JsonRpc.Checked checked;
        try {
            checked = JsonRpc.check(text);
        } catch (JsonRpc.Invalid invalid) {
            sendJson(response, 400, invalid.response());
            return null;
        }
        if (checked.isInitialize() && !initializeHasVersion(text)) {
            sendError(response, 400, checked.id(), JsonRpc.INVALID_PARAMS,
                    "Invalid params: initialize needs protocolVersion, capabilities and clientInfo");
            return null;
        }
        return new Post(new CheckedRequest(request, body), checked, text);
    }

    private boolean initializeHasVersion(String text) {
        try {
            McpSchema.JSONRPCRequest request = (McpSchema.JSONRPCRequest) McpSchema.deserializeJsonRpcMessage(mapper, text);
            return request.params() != null && mapper.convertValue(request.params(), INITIALIZE).protocolVersion() != null;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The body, or null if it is larger than the limit (by its Content-Length or as read). */
    private byte[] readBody(HttpServletRequest request) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBodyBytes) {
            return null;
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try (InputStream in = request.getInputStream()) {
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (body.size() + read > maxBodyBytes) {
                    return null;
                }
                body.write(buffer, 0, read);
            }
        }
        return body.toByteArray();
    }

    /**
     * Before a refusal sent without reading the request's body: asks for {@code Connection: close} if
     * the request has one. Jetty closes a connection whose request body was not read by the time the
     * answer completed, and a fixed-length answer completes as its last byte is written, before Jetty
     * can add that header itself; a client told nothing would send its next request on a connection
     * that is about to close. Reading the body instead would let a client that was refused (perhaps not
     * even authenticated) make the server wait for up to the body limit.
     */
    static void closeIfBodyUnread(HttpServletRequest request, HttpServletResponse response) {
        if (request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null) {
            response.setHeader("Connection", "close");
        }
    }

    void sendError(HttpServletResponse response, int status, Object id, int code, String message) throws IOException {
        sendJson(response, status, JsonRpc.error(id, code, message, null));
    }

    void sendJson(HttpServletResponse response, int status, Map<String, Object> body) throws IOException {
        byte[] bytes = mapper.writeValueAsBytes(body);
        response.setStatus(status);
        response.setContentType(HttpResponses.APPLICATION_JSON);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    /**
     * A request that passed the checks, as the SDK gets it: its body (if read) served again from
     * memory, and its {@code Accept} header in the literal form the SDK looks for (the SDK refuses
     * wildcards such as {@code *}{@code /*} that the checks admit).
     */
    private static final class CheckedRequest extends HttpServletRequestWrapper {

        private static final String BOTH = HttpResponses.APPLICATION_JSON + ", " + HttpResponses.TEXT_EVENT_STREAM;

        private final byte[] body;

        CheckedRequest(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public String getHeader(String name) {
            return "Accept".equalsIgnoreCase(name) ? BOTH : super.getHeader(name);
        }

        @Override
        public java.util.Enumeration<String> getHeaders(String name) {
            return "Accept".equalsIgnoreCase(name) ? java.util.Collections.enumeration(java.util.List.of(BOTH)) : super.getHeaders(name);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (body == null) {
                return super.getInputStream();
            }
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] bytes, int offset, int length) {
                    return in.read(bytes, offset, length);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new IllegalStateException("the body has been read already");
                }
            };
        }

        @Override
        public BufferedReader getReader() throws IOException {
            if (body == null) {
                return super.getReader();
            }
            return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
        }

        @Override
        public int getContentLength() {
            return body == null ? super.getContentLength() : body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body == null ? super.getContentLengthLong() : body.length;
        }
    }
}
