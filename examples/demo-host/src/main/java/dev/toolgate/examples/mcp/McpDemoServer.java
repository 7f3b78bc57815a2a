package dev.toolgate.examples.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.call.Consent;
import dev.toolgate.codemode.Codemode;
import dev.toolgate.context.docs.DocsIndex;
import dev.toolgate.context.docs.DocsTools;
import dev.toolgate.context.web.ProbeSettings;
import dev.toolgate.context.web.ProbeTools;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.examples.DemoPrincipals;
import dev.toolgate.examples.PortInUse;
import dev.toolgate.examples.console.DemoConsole;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.mcp.McpAuthenticator;
import dev.toolgate.micrometer.ToolgateObservability;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import dev.toolgate.mcp.ToolgateMcpServer;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreSettings;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A runnable MCP server for the demo plugin's tools ({@code incident.list/get/create/update/delete},
 * {@code catalog.listSystems}), for real MCP clients: an IDE, a desktop assistant, the MCP Inspector.
 * Beside the tools it serves two resources ({@link DemoCatalog}): the caller's actions guide
 * ({@code toolgate://guide}) and each incident ({@code incident://INC-1}, read through the gate).
 *
 * <pre>
 * # stdio, as carol (what a desktop client launches; builds first when classes are missing or stale):
 * examples/demo-host/mcp-demo --principal carol
 * # or with plain java, after writing the runtime classpath into a Java argument file (lib-mcp-adapter/README.md):
 * java @target/mcp-demo.args dev.toolgate.examples.mcp.McpDemoServer --transport stdio --principal carol
 * # Streamable HTTP on http://127.0.0.1:8765/mcp, demo bearer tokens alice-token, bob-token, carol-token:
 * java @target/mcp-demo.args dev.toolgate.examples.mcp.McpDemoServer --transport http --port 8765
 * </pre>
 *
 * <p>Options: {@code --transport stdio|http} (default stdio), {@code --principal alice|bob|carol}
 * (stdio, default carol), {@code --port N} (http, default 8765), {@code --bind ADDRESS} (http, default
 * 127.0.0.1), {@code --db JDBC_URL|memory} (default an H2 file in {@code ~/.toolgate}), {@code --mode
 * approve|auto} (default approve), {@code --budget N} calls per principal per minute (default 60, 0 for
 * none), {@code --ttl SECONDS} proposal lifetime (default 600), {@code --console-port N} the operator console,
 * {@code --metrics-port N} Toolgate's metrics in the Prometheus text format on {@code /metrics},
 * {@code --consent user|operator} who consents to changes (default user: the client holds the token).
 *
 * <p>In stdio mode standard output carries only protocol messages: the real stdout is taken for the
 * protocol before anything else runs, {@link System#out} then points at standard error, and all logs
 * go to standard error.
 *
 * <p>The principals ({@link DemoPrincipals}) and tokens are demo-only: alice holds {@code *}
 * (everything), bob reads incidents and the catalog, carol also manages incidents, and
 * {@code reporter} is a service principal (sees no tools); each one's token is {@code <name>-token}. Never use fixed tokens in a real host; implement {@link McpAuthenticator} against real
 * credentials.
 */
public final class McpDemoServer {

    /** The default H2 file database; AUTO_SERVER lets a stdio and an HTTP server share it. */
    public static final String DEFAULT_DB = "jdbc:h2:file:~/.toolgate/mcp-demo;AUTO_SERVER=TRUE";

    /** Demo principals by name. */
    public static final Map<String, Principal> PRINCIPALS;
    /** Demo bearer tokens (demo only). */
    public static final Map<String, Principal> TOKENS;

    static {
        Map<String, Principal> principals = new LinkedHashMap<>();
        Map<String, Principal> tokens = new LinkedHashMap<>();
        for (Principal principal : DemoPrincipals.all()) {
            principals.put(principal.id(), principal);
            tokens.put(principal.id() + "-token", principal);
        }
        PRINCIPALS = Map.copyOf(principals);
        TOKENS = Map.copyOf(tokens);
    }

    private McpDemoServer() {
    }

    /** Parsed command-line options. */
    record Options(String transport, String principal, int port, String bind, String db, PermissionMode mode, int budget,
                   int ttlSeconds, int consolePort, int metricsPort, Consent consent) {

        static Options parse(String[] args) {
            Map<String, String> values = new LinkedHashMap<>(Map.of("--transport", "stdio", "--principal", "carol",
                    "--port", "8765", "--bind", "127.0.0.1", "--db", DEFAULT_DB, "--mode", "approve", "--budget", "60",
                    "--ttl", "600", "--console-port", "-1", "--metrics-port", "-1"));
            values.put("--consent", "user");
            for (int i = 0; i < args.length; i++) {
                String key = args[i];
                String value = null;
                int eq = key.indexOf('=');
                if (eq > 0) {
                    value = key.substring(eq + 1);
                    key = key.substring(0, eq);
                }
                if (key.equals("--help") || key.equals("-h")) {
                    throw new IllegalArgumentException("");
                }
                if (!values.containsKey(key)) {
                    throw new IllegalArgumentException("unknown option " + key);
                }
                if (value == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(key + " needs a value");
                    }
                    value = args[++i];
                }
                values.put(key, value);
            }
            String transport = values.get("--transport").toLowerCase(Locale.ROOT);
            if (!transport.equals("stdio") && !transport.equals("http")) {
                throw new IllegalArgumentException("--transport must be stdio or http");
            }
            String principal = values.get("--principal").toLowerCase(Locale.ROOT);
            if (!PRINCIPALS.containsKey(principal)) {
                throw new IllegalArgumentException("--principal must be one of " + PRINCIPALS.keySet());
            }
            PermissionMode mode = switch (values.get("--mode").toLowerCase(Locale.ROOT)) {
                case "approve" -> PermissionMode.APPROVE;
                case "auto" -> PermissionMode.AUTO;
                default -> throw new IllegalArgumentException("--mode must be approve or auto");
            };
            Consent consent = switch (values.get("--consent").toLowerCase(Locale.ROOT)) {
                case "user" -> Consent.USER;
                case "operator" -> Consent.OPERATOR;
                default -> throw new IllegalArgumentException("--consent must be user or operator");
            };
            if (consent == Consent.OPERATOR && mode == PermissionMode.AUTO) {
                throw new IllegalArgumentException("--consent operator cannot be combined with --mode auto");
            }
            return new Options(transport, principal, number(values, "--port", 0, 65535), values.get("--bind"),
                    values.get("--db"), mode, number(values, "--budget", 0, 1_000_000), number(values, "--ttl", 1, 86_400 * 7),
                    number(values, "--console-port", -1, 65535), number(values, "--metrics-port", -1, 65535), consent);
        }

        private static int number(Map<String, String> values, String key, int min, int max) {
            try {
                int value = Integer.parseInt(values.get(key).trim());
                if (value < min || value > max) {
                    throw new IllegalArgumentException(key + " must be between " + min + " and " + max);
                }
                return value;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a whole number");
            }
        }
    }

    static final String USAGE = """
            Usage: McpDemoServer [--transport stdio|http] [--principal alice|bob|carol|reporter] [--port N] [--bind ADDRESS]
                                 [--db JDBC_URL|memory] [--mode approve|auto] [--budget CALLS_PER_MINUTE] [--ttl SECONDS]
                                 [--console-port N] [--metrics-port N] [--consent user|operator]
              stdio: serves one client on stdin/stdout as the chosen demo principal (default carol)
              http:  serves Streamable HTTP on http://BIND:PORT/mcp (default 127.0.0.1:8765); send
                     Authorization: Bearer alice-token | bob-token | carol-token (demo tokens only)
              --db:  default %s; or jdbc:postgresql://..., or memory
              --console-port: also serve the operator console on http://BIND:N/console/ (sign in with a
                     demo token; alice decides)
              --metrics-port: also serve Toolgate's metrics in the Prometheus text format on
                     http://BIND:N/metrics
              --consent: user (default): the client gets each proposal's token and applies it after its
                     user agreed (awaiting_user); operator: no token, no apply tool, only an operator
                     decides in the console (awaiting_operator)
            """.formatted(DEFAULT_DB);

    /**
     * Where the demo keeps what: Toolgate's state in the store, the demo plugin's incidents in this
     * process's memory ({@code DemoData}), so a proposal may outlive the incident it names.
     */
    static String storageNote(String db) {
        if (db.equalsIgnoreCase("memory")) {
            return "Demo data: everything in memory (proposals, runs, audit and the incidents); nothing is kept after exit";
        }
        return "Demo data: proposals, runs and the audit persist in " + db + "; the incidents are this process's"
                + " sample data in memory: each start begins with the sample incident, and another process on the same"
                + " database has its own";
    }

    /** Starts the server; blocks until stdin ends (stdio) or the process is stopped (http). */
    public static void main(String[] args) throws Exception {
        // stdout belongs to the protocol: take it first, then send everything else to stderr
        PrintStream stderr = System.err;
        System.setOut(stderr);
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                stderr.println("error: " + e.getMessage());
            }
            stderr.print(USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : 2);
            return;
        }
        try {
            run(options, stderr);
        } catch (PortInUse e) {
            stderr.println("error: " + e.getMessage()); // one line, no stack trace
            System.exit(1);
        }
        System.exit(0);
    }

    static void run(Options options, PrintStream console) throws Exception {
        ToolgateBuilder builder = Toolgate.builder()
                .budget(options.budget() == 0 ? ToolBudget.unlimited()
                        : ToolBudget.perPrincipal(options.budget(), Duration.ofMinutes(1)))
                .proposalTtl(Duration.ofSeconds(options.ttlSeconds()));
        InMemoryStore memory = null;
        if (options.db().equalsIgnoreCase("memory")) {
            memory = InMemoryStore.builder().settings(StoreSettings.of(Map.of())).build(); // -Dtoolgate.memory.*
            builder.store(memory);
        } else {
            builder.storeSetting("jdbc.url", options.db());
        }
        console.println(storageNote(options.db()));
        PrometheusMeterRegistry prometheus = options.metricsPort() >= 0
                ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : null;
        ToolgateObservability observability = prometheus == null ? null
                : ToolgateObservability.install(builder, ObservationRegistry.create(), prometheus);
        try (Toolgate gate = observability == null ? builder.build() : observability.bind(builder.build())) {
            gate.registry().register(Codemode.tools(gate)); // codemode.describe, .test, .run
            // grounding: Toolgate's own README files as docs.*, and web.probeUrl behind the SSRF guard
            gate.registry().register(DocsTools.tools(DocsIndex.fromPrebuilt("docs-index.bin") /* see GroundingTour.DOCS_INDEX */));
            gate.registry().register(ProbeTools.tools(ProbeSettings.defaults(), "incident.incident.manage"));
            ToolgateMcpServer server;
            if (options.transport().equals("stdio")) {
                server = ToolgateMcpServer.stdio(gate, PRINCIPALS.get(options.principal()))
                        .streams(System.in, new FileOutputStream(FileDescriptor.out))
                        .permissionMode(options.mode())
                        .consent(options.consent())
                        .serverInfo("toolgate-demo", "0.1.0")
                        .catalog(DemoCatalog.of(gate))
                        .start();
            } else {
                server = PortInUse.listen("the MCP server", options.bind(), options.port(), "--port",
                        () -> ToolgateMcpServer.http(gate, McpAuthenticator.fixed(TOKENS))
                                .bind(options.bind())
                                .port(options.port())
                                .permissionMode(options.mode())
                                .consent(options.consent())
                                .serverInfo("toolgate-demo", "0.1.0")
                                .catalog(DemoCatalog.of(gate))
                                .start());
                console.println("Toolgate demo MCP server on " + server.endpoint().orElseThrow()
                        + " (demo bearer tokens: alice-token, bob-token, carol-token, reporter-token)");
                ToolgateMcpServer running = server;
                Runtime.getRuntime().addShutdownHook(new Thread(running::close, "toolgate-mcp-shutdown"));
            }
            // the console after the MCP server: the JDK reads sun.net.httpserver.nodelay when the JVM's first
            // HttpServer is created, and ToolgateMcpServer turns it on only if its own server is that first one
            DemoConsole operatorConsole = null;
            if (options.consolePort() >= 0) {
                try {
                    operatorConsole = PortInUse.listen("the operator console", options.bind(), options.consolePort(),
                            "--console-port", () -> DemoConsole.start(gate, TOKENS, options.bind(), options.consolePort()));
                } catch (Exception e) {
                    server.close();
                    throw e;
                }
                console.println("Toolgate operator console on " + operatorConsole.url()
                        + " (sign in as alice with alice-token to decide)");
            }
            DemoMetrics metrics = null;
            if (prometheus != null) {
                try {
                    metrics = PortInUse.listen("the metrics endpoint", options.bind(), options.metricsPort(),
                            "--metrics-port", () -> DemoMetrics.start(prometheus, options.bind(), options.metricsPort()));
                } catch (Exception e) {
                    server.close();
                    if (operatorConsole != null) {
                        operatorConsole.close();
                    }
                    throw e;
                }
                console.println("Toolgate metrics (Prometheus text format) on " + metrics.url());
            }
            server.awaitTermination();
            server.close();
            if (operatorConsole != null) {
                operatorConsole.close();
            }
            if (metrics != null) {
                metrics.close();
            }
        } finally {
            if (memory != null) {
                memory.close();
            }
        }
    }
}
