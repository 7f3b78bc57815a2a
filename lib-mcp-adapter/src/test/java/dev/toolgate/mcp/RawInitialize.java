package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An {@code initialize} over a raw socket with exactly the {@code Host} lines given, since an HTTP client
 * will not send a chosen {@code Host} (or none, or two): for the Host checks of both HTTP endpoints.
 */
final class RawInitialize {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

    private RawInitialize() {
    }

    /** The HTTP status of the answer; {@code hostLines} empty sends no {@code Host}, {@code token} null no token. */
    static int status(int port, String path, List<String> hostLines, String token) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\n");
            for (String host : hostLines) {
                head.append("Host: ").append(host).append("\r\n");
            }
            if (token != null) {
                head.append("Authorization: Bearer ").append(token).append("\r\n");
            }
            byte[] body = INIT.getBytes(StandardCharsets.UTF_8);
            head.append("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
                    .append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 ");
            return Integer.parseInt(answer.substring(9, 12));
        }
    }
}
