package dev.toolgate.context.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A raw HTTP test server on 127.0.0.1 whose every answer a test scripts, including broken ones. */
final class LocalServer implements AutoCloseable {

    /** Answers one connection; {@code request} is the request head, or null for a raw handler. */
    @FunctionalInterface
    interface Handler {
        void handle(String request, OutputStream out, LocalServer server) throws Exception;
    }

    private final ServerSocket socket;
    private final Handler handler;
    private final boolean readRequest;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> clients = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger clientGone = new AtomicInteger();

    private LocalServer(Handler handler, boolean readRequest) throws IOException {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.handler = handler;
        this.readRequest = readRequest;
        Thread accept = new Thread(this::acceptLoop, "local-server-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** A server that reads each request head, then lets the handler answer. */
    static LocalServer start(Handler handler) throws IOException {
        return new LocalServer(handler, true);
    }

    /** A server whose handler gets the connection as it is, without reading anything. */
    static LocalServer raw(Handler handler) throws IOException {
        return new LocalServer(handler, false);
    }

    /** A handler that answers with fixed bytes. */
    static Handler answer(String response) {
        return (request, out, server) -> out.write(response.getBytes(StandardCharsets.ISO_8859_1));
    }

    int port() {
        return socket.getLocalPort();
    }

    List<String> requests() {
        return requests;
    }

    int connections() {
        return connections.get();
    }

    /** How many handlers ended because the client went away while they were still writing. */
    int clientsGone() {
        return clientGone.get();
    }

    /** Blocks until the server is closed or the time passes; for handlers that hold a connection. */
    void hold(long seconds) throws InterruptedException {
        closed.await(seconds, TimeUnit.SECONDS);
    }

    boolean isClosed() {
        return closed.getCount() == 0;
    }

    private void acceptLoop() {
        while (!isClosed()) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException e) {
                return;
            }
            connections.incrementAndGet();
            clients.add(client);
            Thread thread = new Thread(() -> serve(client), "local-server-conn");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void serve(Socket client) {
        try (client) {
            client.setSoTimeout(30_000);
            String request = null;
            if (readRequest) {
                request = readHead(client.getInputStream());
                requests.add(request);
            }
            OutputStream out = client.getOutputStream();
            handler.handle(request, out, this);
            out.flush();
        } catch (IOException e) {
            clientGone.incrementAndGet();
        } catch (Exception e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            String text = head.toString(StandardCharsets.ISO_8859_1);
            if (text.endsWith("\r\n\r\n") || head.size() > 65536) {
                break;
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        closed.countDown();
        socket.close();
        for (Socket client : clients) {
            client.close();
        }
    }
}
