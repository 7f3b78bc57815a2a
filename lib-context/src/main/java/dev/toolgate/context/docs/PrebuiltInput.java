package dev.toolgate.context.docs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The payload, read through one buffer: every byte consumed goes into the CRC when the buffer is refilled or
 * finished, and nothing past the announced payload is read.
 */
final class PrebuiltInput {
    private final InputStream in;
    private final byte[] buffer = new byte[64 * 1024];
    private final ByteBuffer view = ByteBuffer.wrap(buffer);
    final CRC32 crc = new CRC32();
    private int position;
    private int limit;
    private long unread;

    PrebuiltInput(InputStream in, int payloadLength) {
        this.in = in;
        this.unread = payloadLength;
    }

    /** Payload bytes not consumed yet. */
    long remaining() {
        return unread + (limit - position);
    }

    /** Makes {@code n} (at most the buffer's size) bytes available. */
    private void need(int n) throws IOException {
        if (limit - position >= n) {
            return;
        }
        if (remaining() < n) {
            throw new IllegalArgumentException("prebuilt docs index truncated: its content ends early");
        }
        crc.update(buffer, 0, position);
        int kept = limit - position;
        System.arraycopy(buffer, position, buffer, 0, kept);
        position = 0;
        limit = kept;
        int wanted = (int) Math.min(buffer.length - kept, unread);
        int read = in.readNBytes(buffer, kept, wanted);
        unread -= read;
        limit += read;
        if (read < wanted || limit < n) {
            throw new IllegalArgumentException("prebuilt docs index truncated: the header announces more "
                    + "payload bytes than the file holds");
        }
    }

    /** The CRC of everything consumed. */
    long finish() {
        crc.update(buffer, 0, position);
        crc.update(buffer, position, limit - position);
        position = limit;
        return crc.getValue();
    }

    int getInt() throws IOException {
        need(4);
        int value = view.getInt(position);
        position += 4;
        return value;
    }

    byte get() throws IOException {
        need(1);
        return buffer[position++];
    }

    void get(byte[] into) throws IOException {
        get(into, into.length);
    }

    /** Reads {@code count} bytes into the start of {@code into}. */
    void get(byte[] into, int count) throws IOException {
        int done = 0;
        while (done < count) {
            need(1);
            int n = Math.min(count - done, limit - position);
            System.arraycopy(buffer, position, into, done, n);
            position += n;
            done += n;
        }
    }

    void getInts(int[] into) throws IOException {
        int done = 0;
        while (done < into.length) {
            need(4);
            int n = Math.min(into.length - done, (limit - position) / 4);
            view.position(position);
            view.asIntBuffer().get(into, done, n);
            position += 4 * n;
            done += n;
        }
    }

    void getFloats(float[] into) throws IOException {
        int done = 0;
        while (done < into.length) {
            need(4);
            int n = Math.min(into.length - done, (limit - position) / 4);
            view.position(position);
            view.asFloatBuffer().get(into, done, n);
            position += 4 * n;
            done += n;
        }
    }

    String string(boolean nullable) throws IOException {
        int length = getInt();
        if (length == -1 && nullable) {
            return null;
        }
        if (length < 0 || length >= remaining()) {
            throw Prebuilt.corrupt("a string of " + length + " bytes with " + remaining() + " left");
        }
        byte encoding = get();
        if (encoding != 0 && encoding != 1) {
            throw Prebuilt.corrupt("a string's encoding is " + encoding);
        }
        Charset charset = encoding == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8;
        if (length <= buffer.length) {
            need(length);
            String text = new String(buffer, position, length, charset);
            position += length;
            return text;
        }
        byte[] bytes = new byte[length];
        get(bytes);
        return new String(bytes, charset);
    }

    boolean flag() throws IOException {
        byte b = get();
        if (b != 0 && b != 1) {
            throw Prebuilt.corrupt("a flag is " + b);
        }
        return b == 1;
    }

    /** A count of items each at least {@code minBytes} long: never more than the bytes left could hold. */
    int count(int minBytes, String what) throws IOException {
        int count = getInt();
        if (count < 0 || (long) count * minBytes > remaining()) {
            throw Prebuilt.corrupt("it announces " + count + " " + what + ", more than its " + remaining()
                    + " remaining bytes hold");
        }
        return count;
    }
}
