package dev.toolgate.examples.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection kept alive across requests, read and written with blocking I/O on the
 * caller's thread: what an MCP client's HTTP stack amounts to on the wire (Node's and Python's clients
 * send a session's requests one after the other on one kept-alive connection from a single event loop),
 * without the JDK {@link java.net.http.HttpClient}'s own thread hand-offs (its selector thread reads the
 * response and a pool thread completes the caller's future), which cost more than the server's path on
 * a 2-core machine and are the client's, not the server's. Requests carry a {@code Content-Length};
 * responses may be fixed-length or chunked. A response with {@code Connection: close} (or a server that
 * closed the idle connection) makes the next request reconnect. Not thread-safe: one caller at a time.
 */
final class KeptAliveConnection implements AutoCloseable {

    /** One response: the status, the headers (names in lower case, last value wins) and the body. */
    record Response(int status, Map<String, String> headers, String body) {
    }

    private final URI endpoint;
    private final int timeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    KeptAliveConnection(URI endpoint, int timeoutMillis) {
        this.endpoint = endpoint;
        this.timeoutMillis = timeoutMillis;
    }

    /** Sends one request and reads its whole response; {@code body} may be null (no body). */
    Response send(String method, Map<String, String> headers, String body) throws IOException {
        if (socket == null) {
            connect();
        }
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(256).append(method).append(' ').append(endpoint.getRawPath())
                .append(" HTTP/1.1\r\nHost: ").append(endpoint.getHost()).append(':').append(endpoint.getPort()).append("\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(content.length).append("\r\n\r\n");
        try {
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            Response response = read();
            if ("close".equalsIgnoreCase(response.headers().get("connection"))) {
                close();
            }
            return response;
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true); // a client writes a request's head and body in one flush anyway
            s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
        out = new BufferedOutputStream(s.getOutputStream(), 16 * 1024);
    }

    private Response read() throws IOException {
        String statusLine = line();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
            }
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = chunked();
        } else if (headers.containsKey("content-length")) {
            body = exactly(Integer.parseInt(headers.get("content-length")));
        } else {
            body = new byte[0]; // 1xx, 204, 304 or a bodiless status (the JDK server sends no length then)
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            int semicolon = size.indexOf(';');
            int length = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).strip(), 16);
            if (length == 0) {
                while (!line().isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.write(exactly(length));
            line();
        }
    }

    private byte[] exactly(int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new EOFException("the connection closed " + (length - bytes.length) + " bytes before the body's end");
        }
        return bytes;
    }

    /** One line of the head, without its CRLF. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("the connection closed mid-response");
            }
            if (c == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) c);
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }
}
