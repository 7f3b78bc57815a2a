package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpServer;
import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A Streamable HTTP MCP server over the test tools in a JVM of its own, started the way a host starts
 * one: no {@code -D} flags unless a test passes some. Prints {@code PORT <port>} on stdout once serving
 * and stops when its stdin ends. With the argument {@code jdk-server-first} it first starts a plain JDK
 * {@link HttpServer} (kept running), as a host with its own admin endpoint might, and then starts the
 * MCP server twice (the second time to see that a warning is not repeated).
 */
public final class HttpTestServer {

    private HttpTestServer() {
    }

    /** The command that runs this main in a fresh JVM with only {@code jvmOptions} and the classpath. */
    static List<String> command(List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), HttpTestServer.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    public static void main(String[] args) throws IOException {
        boolean jdkServerFirst = args.length > 0 && args[0].equals("jdk-server-first");
        HttpServer plain = null;
        if (jdkServerFirst) {
            plain = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            plain.createContext("/", exchange -> {
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            plain.start();
        }
        try (Toolgate gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited())) {
            McpAuthenticator authenticator = token -> Optional.ofNullable(Fixtures.TOKENS.get(token));
            if (jdkServerFirst) {
                ToolgateMcpServer.http(gate, authenticator).start().close();
            }
            ToolgateMcpServer server = ToolgateMcpServer.http(gate, authenticator).start();
            System.out.println("PORT " + server.port());
            System.out.flush();
            while (System.in.read() != -1) {
                // serve until the test closes our stdin
            }
            server.close();
        } finally {
            if (plain != null) {
                plain.stop(0);
            }
        }
        System.exit(0);
    }
}
