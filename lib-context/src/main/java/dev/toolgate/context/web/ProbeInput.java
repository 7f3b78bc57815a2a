package dev.toolgate.context.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;

/** Buffered reading where every wait is bounded by what is left of the deadline. */
final class ProbeInput {
    private final Socket socket;
    private final InputStream in;
    private final long deadline;
    private final byte[] buffer = new byte[8192];
    private int pos;
    private int len;

    ProbeInput(Socket socket, long deadline) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.deadline = deadline;
    }

    private boolean fill() throws IOException {
        if (pos < len) {
            return true;
        }
        socket.setSoTimeout(UrlProbe.remainingMillis(deadline));
        int n = in.read(buffer);
        if (n <= 0) {
            return false;
        }
        pos = 0;
        len = n;
        return true;
    }

    /** A line without its CR LF, null at end of stream before any byte; counts against {@code budget[0]}. */
    String line(int[] budget, String limitMessage) throws IOException {
        StringBuilder line = new StringBuilder();
        boolean any = false;
        while (true) {
            if (!fill()) {
                if (!any) {
                    return null;
                }
                throw ProbeResponse.malformed("the connection closed in the middle of a line");
            }
            int b = buffer[pos++] & 0xff;
            any = true;
            if (--budget[0] < 0) {
                throw ProbeResponse.malformed(limitMessage);
            }
            if (b == '\n') {
                int l = line.length();
                if (l > 0 && line.charAt(l - 1) == '\r') {
                    line.setLength(l - 1);
                }
                return line.toString();
            }
            line.append((char) b);
        }
    }

    /** Copies up to {@code n} bytes; returns how many arrived before the end of the stream. */
    int exactly(ByteArrayOutputStream sink, int n) throws IOException {
        int copied = 0;
        while (copied < n) {
            if (!fill()) {
                return copied;
            }
            int chunk = Math.min(n - copied, len - pos);
            sink.write(buffer, pos, chunk);
            pos += chunk;
            copied += chunk;
        }
        return copied;
    }

    void untilClose(ByteArrayOutputStream sink, int limit) throws IOException {
        exactly(sink, limit - sink.size());
    }
}
