package dev.toolgate.examples.console;

import com.sun.net.httpserver.HttpServer;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.console.ConsoleAuthenticator;
import dev.toolgate.console.ConsoleLogin;
import dev.toolgate.console.ToolgateConsole;
import dev.toolgate.call.CallContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The operator console of the demo, on the JDK's own HTTP server at {@code http://BIND:PORT/console/}.
 * People sign in with the demo tokens ({@code alice-token} and so on; the user name, if typed, must be
 * the token's owner). alice holds the approver rule; bob and carol sign in but see no inbox.
 *
 * <p>Demo only: a real host checks its own users in {@link ConsoleAuthenticator}, serves the console
 * over HTTPS and leaves {@code secureCookie} on.
 */
public final class DemoConsole implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final ToolgateConsole console;

    private DemoConsole(HttpServer server, ExecutorService executor, ToolgateConsole console) {
        this.server = server;
        this.executor = executor;
        this.console = console;
    }

    /**
     * Starts the console.
     *
     * @param gate   the gate whose inbox it shows
     * @param tokens demo tokens and whom each signs in
     * @param bind   the address to listen on
     * @param port   the port (0 for any free one)
     */
    public static DemoConsole start(Toolgate gate, Map<String, Principal> tokens, String bind, int port) throws IOException {
        ToolgateConsole console = ToolgateConsole.builder(gate)
                .authenticator(new TokenLogin(tokens))
                .secureCookie(false) // plain HTTP on a loopback address: demo only
                .build();
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 0);
        server.createContext("/console", console.httpHandler());
        ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "toolgate-console");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new DemoConsole(server, executor, console);
    }

    /** The page's address. */
    public String url() {
        InetSocketAddress address = server.getAddress();
        return "http://" + address.getHostString() + ":" + address.getPort() + "/console/";
    }

    /** How many people are signed in now. */
    public int activeSessions() {
        return console.activeSessions();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /** Demo sign-in: the secret is a demo token, compared in constant time. */
    private record TokenLogin(Map<String, Principal> tokens) implements ConsoleAuthenticator {
        @Override
        public Optional<CallContext> authenticate(ConsoleLogin login) {
            byte[] typed = login.secret().getBytes(StandardCharsets.UTF_8);
            Principal match = null;
            for (Map.Entry<String, Principal> entry : tokens.entrySet()) {
                if (MessageDigest.isEqual(entry.getKey().getBytes(StandardCharsets.UTF_8), typed)) {
                    match = entry.getValue();
                }
            }
            if (match == null || (!login.user().isEmpty() && !login.user().equals(match.id()))) {
                return Optional.empty();
            }
            return Optional.of(CallContext.of(match));
        }
    }
}
