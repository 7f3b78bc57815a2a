package dev.toolgate.mcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many raw clients on one thread that send a request one byte per second: either its head at once
 * and then the body byte by byte, or everything byte by byte from the request line on. Records, per
 * client, whether the server closed the connection and whether it answered anything.
 */
final class SlowClients implements AutoCloseable {

    /** What is sent slowly. */
    enum Mode {
        BODY, HEAD
    }

    private final Selector selector;
    private final List<Client> clients = new ArrayList<>();
    private final Thread driver;
    private final AtomicInteger closedByServer = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private volatile boolean stop;

    private static final class Client {
        final SocketChannel channel;
        final ByteBuffer fast;
        final ByteBuffer slow;
        boolean closed;

        Client(SocketChannel channel, ByteBuffer fast, ByteBuffer slow) {
            this.channel = channel;
            this.fast = fast;
            this.slow = slow;
        }
    }

    /**
     * Connects {@code count} clients to {@code port}, each about to send a POST of the MCP endpoint
     * with a {@code bodyBytes} body; call {@link #start()} to begin sending.
     */
    SlowClients(int port, int count, Mode mode, String token, int bodyBytes) throws IOException {
        this.selector = Selector.open();
        String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                + bodyBytes + "\r\n\r\n";
        byte[] body = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"" + "x".repeat(bodyBytes))
                .substring(0, bodyBytes).getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < count; i++) {
            SocketChannel channel = SocketChannel.open();
            channel.socket().connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            channel.configureBlocking(false);
            byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
            ByteBuffer fast = ByteBuffer.wrap(mode == Mode.BODY ? headBytes : new byte[0]);
            ByteBuffer slow;
            if (mode == Mode.BODY) {
                slow = ByteBuffer.wrap(body);
            } else {
                slow = ByteBuffer.allocate(headBytes.length + body.length).put(headBytes).put(body).flip();
            }
            Client client = new Client(channel, fast, slow);
            channel.register(selector, SelectionKey.OP_READ, client);
            clients.add(client);
        }
        this.driver = new Thread(this::drive, "slow-clients");
        this.driver.setDaemon(true);
    }

    void start() {
        driver.start();
    }

    int count() {
        return clients.size();
    }

    /** Clients whose connection the server closed. */
    int closedByServer() {
        return closedByServer.get();
    }

    /** Clients that received any bytes from the server. */
    int answered() {
        return answered.get();
    }

    private void drive() {
        ByteBuffer sink = ByteBuffer.allocate(4096);
        long nextByte = System.nanoTime();
        try {
            while (!stop) {
                long now = System.nanoTime();
                if (now - nextByte >= 0) {
                    nextByte = now + Duration.ofSeconds(1).toNanos();
                    for (Client client : clients) {
                        if (!client.closed) {
                            send(client);
                        }
                    }
                }
                selector.select(Math.max(1, Duration.ofNanos(nextByte - System.nanoTime()).toMillis()));
                for (SelectionKey key : selector.selectedKeys()) {
                    Client client = (Client) key.attachment();
                    try {
                        sink.clear();
                        int n = client.channel.read(sink);
                        if (n > 0) {
                            answered.incrementAndGet();
                        }
                        if (n < 0) {
                            closed(client, key);
                        }
                    } catch (IOException e) {
                        closed(client, key);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void send(Client client) {
        try {
            while (client.fast.hasRemaining()) {
                if (client.channel.write(client.fast) == 0) {
                    return;
                }
            }
            if (client.slow.hasRemaining()) {
                ByteBuffer one = client.slow.slice(client.slow.position(), 1);
                if (client.channel.write(one) == 1) {
                    client.slow.position(client.slow.position() + 1);
                }
            }
        } catch (IOException e) {
            closed(client, client.channel.keyFor(selector));
        }
    }

    private void closed(Client client, SelectionKey key) {
        if (!client.closed) {
            client.closed = true;
            closedByServer.incrementAndGet();
            if (key != null) {
                key.cancel();
            }
            try {
                client.channel.close();
            } catch (IOException ignored) {
                // closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        stop = true;
        selector.wakeup();
        try {
            driver.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Client client : clients) {
            client.channel.close();
        }
        selector.close();
    }
}
