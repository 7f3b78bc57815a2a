package dev.toolgate.mcp.remote;

import dev.toolgate.json.TextCap;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceContext;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One source's connection to its server: opened on first use with the host's secrets, kept for later
 * requests, dropped after a transport failure so the next request opens a new one. A JSON-RPC error
 * is the server's answer and leaves the connection alone; anything else means the server could not
 * be reached.
 */
final class RemoteClient {

    private static final Logger LOG = LoggerFactory.getLogger(McpSource.class);
    private static final Pattern HEADER = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}");
    private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    /** Requests wait at least this long; the gate's own call and listing timeouts cut in earlier. */
    private static final Duration MIN_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** How to reach the server. */
    sealed interface Connection permits Http, Stdio {
        McpClientTransport transport(SecretResolver secrets, Duration connectTimeout);
    }

    /** A value given as is, or the name of a secret, after a fixed prefix (such as {@code Bearer }). */
    record Value(String prefix, String text, boolean secret) {
        Value(String text, boolean secret) {
            this("", text, secret);
        }

        String resolve(SecretResolver secrets) {
            return prefix + (secret ? secrets.require(text) : text);
        }
    }

    /** Streamable HTTP with headers. */
    static final class Http implements Connection {
        private final URI endpoint;
        private final Map<String, Value> headers = new LinkedHashMap<>();

        Http(URI endpoint) {
            this.endpoint = endpoint;
        }

        void header(String name, String value, boolean secret) {
            if (name == null || !HEADER.matcher(name).matches()) {
                throw new IllegalArgumentException("invalid HTTP header name '" + name + "'");
            }
            if (!secret && (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0)) {
                throw new IllegalArgumentException("the value of header " + name + " contains a line break");
            }
            headers.put(name, new Value(value, secret));
        }

        void bearer(String secretName) {
            headers.put("Authorization", new Value("Bearer ", secretName, true));
        }

        @Override
        public McpClientTransport transport(SecretResolver secrets, Duration connectTimeout) {
            Map<String, String> resolved = new LinkedHashMap<>();
            headers.forEach((name, value) -> {
                String text = value.resolve(secrets);
                if (text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0) {
                    throw new IllegalArgumentException("the secret for header " + name + " contains a line break");
                }
                resolved.put(name, text);
            });
            String base = endpoint.getScheme() + "://" + endpoint.getRawAuthority();
            String path = endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty() ? "/" : endpoint.getRawPath();
            if (endpoint.getRawQuery() != null) {
                path = path + "?" + endpoint.getRawQuery();
            }
            return HttpClientStreamableHttpTransport.builder(base)
                    .endpoint(path)
                    .connectTimeout(connectTimeout)
                    .clientBuilder(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER))
                    .addHttpRequestCustomizer((builder, method, uri, body, context) -> resolved.forEach(builder::header))
                    .build();
        }

        @Override
        public String toString() {
            return endpoint.getScheme() + "://" + endpoint.getRawAuthority() + endpoint.getRawPath();
        }
    }

    /** A child process over stdio. */
    static final class Stdio implements Connection {
        private final List<String> command;
        private final Map<String, Value> env = new LinkedHashMap<>();

        Stdio(List<String> command) {
            this.command = List.copyOf(command);
        }

        void env(String name, String value, boolean secret) {
            if (name == null || !ENV.matcher(name).matches()) {
                throw new IllegalArgumentException("invalid environment variable name '" + name + "'");
            }
            env.put(name, new Value(value, secret));
        }

        @Override
        public McpClientTransport transport(SecretResolver secrets, Duration connectTimeout) {
            ServerParameters.Builder parameters = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()));
            env.forEach((name, value) -> parameters.addEnvVar(name, value.resolve(secrets)));
            StdioClientTransport transport = new StdioClientTransport(parameters.build(), McpJsonDefaults.getMapper());
            transport.setStdErrorHandler(line -> LOG.debug("stderr of {}: {}", command.get(0),
                    TextCap.forLog(line)));
            return transport;
        }

        @Override
        public String toString() {
            return "stdio " + command.get(0);
        }
    }

    private final String id;
    private final Connection connection;
    private final Duration connectTimeout;
    private volatile Runnable toolsChanged = () -> { };
    private McpSyncClient client;

    RemoteClient(String id, Connection connection, Duration connectTimeout) {
        this.id = id;
        this.connection = connection;
        this.connectTimeout = connectTimeout;
    }

    void onToolsChanged(Runnable changed) {
        this.toolsChanged = changed;
    }

    /**
     * Runs one request on the open connection, opening it first if need be.
     *
     * @throws McpError                                       if the server answered with an error
     * @throws dev.toolgate.call.SourceUnavailableException   if it could not be reached
     */
    <T> T request(SourceContext context, Function<McpSyncClient, T> request) {
        McpSyncClient open = open(context);
        try {
            return request.apply(open);
        } catch (McpError e) {
            if (e.getJsonRpcError() != null) {
                throw e;
            }
            drop(open);
            throw McpSource.unavailable(id, "the server could not be reached: " + message(e));
        } catch (RuntimeException e) {
            drop(open);
            throw McpSource.unavailable(id, "the server could not be reached: " + message(e));
        }
    }

    private synchronized McpSyncClient open(SourceContext context) {
        if (client != null) {
            return client;
        }
        McpClientTransport transport;
        try {
            transport = connection.transport(context.secrets(), connectTimeout);
        } catch (SecretResolver.MissingSecretException e) {
            throw McpSource.unavailable(id, e.getMessage());
        } catch (RuntimeException e) {
            throw McpSource.unavailable(id, "cannot set up the connection: " + message(e));
        }
        Duration timeout = context.timeout().compareTo(MIN_REQUEST_TIMEOUT) > 0 ? context.timeout() : MIN_REQUEST_TIMEOUT;
        McpSyncClient opened = McpClient.sync(transport)
                .clientInfo(McpSchema.Implementation.builder("toolgate", "0.1").build())
                .requestTimeout(timeout)
                .initializationTimeout(connectTimeout)
                .toolsChangeConsumer(tools -> toolsChanged.run())
                .build();
        try {
            opened.initialize();
        } catch (RuntimeException e) {
            closeQuietly(opened);
            throw McpSource.unavailable(id, "the server could not be reached: " + message(e));
        }
        LOG.debug("Connected to MCP source {} ({})", id, connection);
        client = opened;
        return opened;
    }

    private synchronized void drop(McpSyncClient failed) {
        if (client == failed) {
            client = null;
        }
        closeQuietly(failed);
    }

    synchronized void close() {
        if (client != null) {
            closeQuietly(client);
            client = null;
        }
    }

    /** Closes without waiting for the server: it may be the reason for closing, and a graceful close would wait for it. */
    private static void closeQuietly(McpSyncClient client) {
        try {
            client.close();
        } catch (RuntimeException ignored) {
            // the connection is gone either way
        }
    }

    /** The root cause's message: transport exceptions nest several layers deep. */
    static String message(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getMessage();
        return root.getClass().getSimpleName() + (text == null || text.isBlank() ? "" : ": " + text);
    }

    @Override
    public String toString() {
        return connection.toString();
    }
}
