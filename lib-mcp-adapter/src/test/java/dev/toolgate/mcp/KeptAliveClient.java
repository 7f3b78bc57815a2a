package dev.toolgate.mcp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One raw HTTP/1.1 connection to the MCP endpoint, kept alive across requests: each request is
 * written in one piece ({@code Content-Length}), each response read to its end (fixed length or
 * chunked). It never reconnects, so every request it makes travels on the same TCP connection; a
 * response that closes the connection fails the next request.
 */
final class KeptAliveClient implements AutoCloseable {

    /** One response: status, headers (names in lower case) and body. */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final int port;
    private final String token;
    private String session;
    private Response initialized;

    KeptAliveClient(int port, String token) throws IOException {
        this.port = port;
        this.token = token;
        this.socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(30_000);
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** {@code initialize} and {@code notifications/initialized}; later posts carry the session id. */
    KeptAliveClient initialize() throws IOException {
        Response init = post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kept-alive\",\"version\":\"1\"}}}");
        if (init.status() != 200 || init.header("Mcp-Session-Id") == null) {
            throw new IOException("initialize failed: " + init);
        }
        session = init.header("Mcp-Session-Id");
        initialized = init;
        Response initialized = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        if (initialized.status() != 202) {
            throw new IOException("notifications/initialized failed: " + initialized);
        }
        return this;
    }

    /** The answer to {@link #initialize()}, or null before it. */
    Response initializeResponse() {
        return initialized;
    }

    /** The session id from {@link #initialize()}, or null. */
    String sessionId() {
        return session;
    }

    /** A {@code tools/call} with JSON arguments. */
    Response call(int id, String tool, String arguments) throws IOException {
        return post("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}");
    }

    /** POSTs one JSON-RPC message on this connection and reads the whole response. */
    Response post(String json) throws IOException {
        return post(json, token);
    }

    /** The same with another bearer token (the session id, if any, goes along). */
    Response post(String json, String bearer) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder()
                .append("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:").append(port)
                .append("\r\nAuthorization: Bearer ").append(bearer)
                .append("\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n");
        if (session != null) {
            head.append("Mcp-Session-Id: ").append(session).append("\r\nMCP-Protocol-Version: 2025-11-25\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, request, 0, headBytes.length);
        System.arraycopy(body, 0, request, headBytes.length, body.length);
        out.write(request); // one write: the client's own Nagle never holds part of a request back
        out.flush();
        return read();
    }

    private Response read() throws IOException {
        String statusLine = line();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + statusLine);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = Integer.parseInt(line().split(";")[0].strip(), 16); size > 0;
                 size = Integer.parseInt(line().split(";")[0].strip(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            line();
        } else {
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                throw new EOFException("the connection ended inside a response body");
            }
            body.write(bytes);
        }
        return new Response(Integer.parseInt(parts[1]), headers, body.toString(StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b == -1) {
                throw new EOFException("the server closed the connection");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
