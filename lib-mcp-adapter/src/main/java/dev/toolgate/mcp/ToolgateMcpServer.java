package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.server.McpAsyncServer;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link Toolgate}'s governed tools over the Model Context Protocol (protocol 2025-11-25,
 * official MCP Java SDK), over stdio or Streamable HTTP. The gate stays the only way in: the same
 * authorization, dry-run and consent, budget and audit apply as on any other transport, and the audit
 * records these calls with transport {@code mcp}.
 *
 * <pre>{@code
 * Toolgate gate = Toolgate.builder().build();
 * // a local assistant launches the host as a subprocess, acting as one user:
 * ToolgateMcpServer.stdio(gate, Principal.user("carol", "incident.incident.manage")).start().awaitTermination();
 * // or many clients over HTTP, each request's principal from its bearer token:
 * ToolgateMcpServer server = ToolgateMcpServer.http(gate, token -> sessions.principalFor(token))
 *         .port(8765)                        // bound to 127.0.0.1 unless bind(...) says otherwise
 *         .start();                          // serves http://127.0.0.1:8765/mcp until close()
 * }</pre>
 *
 * <h2>What a client sees</h2>
 * <ul>
 *   <li>{@code tools/list}: exactly the tools the resolver offers the principal, with their input JSON
 *       Schema, title, description and annotations from the effect (READ: {@code readOnlyHint};
 *       MUTATE: {@code destructiveHint: false}; DESTRUCTIVE: {@code destructiveHint: true};
 *       {@code openWorldHint} as declared), plus (unless only operators consent) the apply tool ({@value #APPLY_TOOL}) whenever the
 *       principal can see at least one MUTATE or DESTRUCTIVE tool. Registering or removing tools later
 *       sends {@code notifications/tools/list_changed}.</li>
 *   <li>{@code tools/call} of a READ tool runs it; of a mutating tool returns the proposal (structured
 *       content: {@code status}, {@code summary}, {@code payload}, {@code diff}, {@code expiresAt}, plus
 *       a text block with the same JSON). Who consents is the server's choice
 *       ({@link McpServerBuilder#consent}): with {@code Consent.USER} (the default) the status is
 *       {@code awaiting_user}, the result carries the {@code token}, and {@value #APPLY_TOOL} with
 *       {@code {"token": ...}} applies it; a DESTRUCTIVE apply first asks the human
 *       ({@code elicitation/create}) and applies only on accept, and a client that cannot elicit is
 *       refused unless the host allowed it ({@link McpServerBuilder#allowDestructiveWithoutElicitation}).
 *       With {@code Consent.OPERATOR} the status is {@code awaiting_operator}, no token is sent, no
 *       apply, approve, reject or rollback tool is offered, and only an operator decides.</li>
 *   <li>A tool that starts a durable run (such as {@code codemode.run}) answers with the run's outcome
 *       ({@code paused}, {@code completed}, {@code error}) and the {@code callId} of its own call.</li>
 *   <li>Tasks (unless {@link McpServerBuilder#tasks tasks(false)}): the {@code tasks} capability, and
 *       {@code execution.taskSupport: "optional"} on the tools that may wait for consent; such a call made
 *       as a task answers with the task (its proposal {@code call:<id>} or run {@code run:<id>}), which
 *       {@code tasks/get}, {@code tasks/list}, {@code tasks/cancel} and {@code tasks/result} follow until an
 *       operator (or, with {@code Consent.USER}, the user through elicitation) decides it. See the module
 *       README.</li>
 *   <li>With a {@link McpCatalog} ({@code .catalog(...)}): resources, resource templates, subscriptions,
 *       prompts and completion, each shown only to principals the same resolver allows; a hidden one
 *       answers exactly as an unknown one (see the module README).</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * <table>
 *   <caption>How gate outcomes reach the client</caption>
 *   <tr><th>outcome</th><th>MCP answer</th></tr>
 *   <tr><td>unknown tool, or a tool the resolver hides from the principal</td>
 *       <td>JSON-RPC error -32602 "Unknown tool: invalid_tool_name" (indistinguishable)</td></tr>
 *   <tr><td>invalid arguments, dry-run validation failure</td>
 *       <td>{@code isError: true}, structured {@code {status: "invalid", kind: "validation", toolName,
 *       issues: [{path, message}], message}}</td></tr>
 *   <tr><td>forbidden (the gate refuses after the tool was offered, e.g. applying a token whose tool
 *       needs a rule the applier lacks or lost)</td>
 *       <td>{@code isError: true}, {@code {status: "forbidden", code: "forbidden", missingRules,
 *       message: "Forbidden: <tool> (missing permission: <rule>)"}}</td></tr>
 *   <tr><td>token malformed, forged, unknown, expired, used; proposal closed or stale; pending limit</td>
 *       <td>{@code isError: true}, {@code {status: "error", kind: "gate", code, message}}</td></tr>
 *   <tr><td>policy denial</td><td>{@code isError: true}, the {@code denied} result</td></tr>
 *   <tr><td>the tool failed or timed out</td>
 *       <td>{@code isError: true}, {@code {status: "failed", kind: "execution", callId, message}} (redacted)</td></tr>
 *   <tr><td>destructive apply declined in elicitation, or the client cannot elicit</td>
 *       <td>{@code isError: true}, {@code {status: "not_applied", kind: "consent", code: "declined"}} (or
 *       {@code "cancelled"}, {@code "confirmation_unavailable"})</td></tr>
 *   <tr><td>over budget</td>
 *       <td>JSON-RPC error {@value #RATE_LIMITED} "Rate limited", data {@code {retryAfterSeconds,
 *       retryAfterMillis, limit, windowSeconds}}; on Streamable HTTP also HTTP 429 with
 *       {@code Retry-After}</td></tr>
 *   <tr><td>the gate's store is unavailable (database down, hung, full, read-only)</td>
 *       <td>over Streamable HTTP: JSON-RPC error {@value #STORE_UNAVAILABLE} "Store unavailable: ... try
 *       again in N s", data {@code {fault, retryable, retryAfterSeconds, retryAfterMillis}}, HTTP 503 with
 *       {@code Retry-After} when retryable; over stdio: {@code isError: true}, {@code {status:
 *       "unavailable", kind: "store", fault, retryable, retryAfterSeconds, message}}</td></tr>
 *   <tr><td>{@code tasks/result} stopped waiting before the task ended</td>
 *       <td>JSON-RPC error {@value #TASK_NOT_FINISHED}, data {@code {taskId, status}}</td></tr>
 *   <tr><td>an unknown task, or another principal's</td>
 *       <td>JSON-RPC error -32602 "Failed to retrieve task: Task not found" (indistinguishable)</td></tr>
 * </table>
 *
 * <p>TCP_NODELAY (Streamable HTTP): without it, JDK 17's HTTP server makes every call after the first
 * on a kept-alive connection wait about 40 ms (it writes headers and body separately, and Nagle's
 * algorithm waits for the client's delayed ACK). The JDK turns it on only through the system property
 * {@code sun.net.httpserver.nodelay}, which it reads once per JVM, when its first HTTP server is
 * created; this class sets the property to {@code true} when it is first used, unless the host set it
 * (the host's value stands). Limitation: if a JDK {@code HttpServer} was created in the JVM before this
 * class was first used, the JDK has read the property already, and the first HTTP server start logs
 * one warning; then start the JVM with {@code -Dsun.net.httpserver.nodelay=true}, or use this class
 * before creating any other JDK HTTP server.
 *
 * <p>The server does not own the {@link Toolgate}: {@link #close()} stops serving, the host closes the gate.
 */
public final class ToolgateMcpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    static {
        HttpNoDelay.ensure(); // as early as Toolgate's code runs: before the JDK reads sun.net.httpserver.nodelay
    }

    /** The default name of the apply tool. */
    public static final String APPLY_TOOL = "toolgate.apply";

    /**
     * The JSON-RPC error code for a call refused because the principal is over its budget. The error's
     * data holds {@code retryAfterSeconds} (whole seconds, at least 1), {@code retryAfterMillis},
     * {@code limit} and {@code windowSeconds}.
     */
    public static final int RATE_LIMITED = -32029;

    /**
     * The JSON-RPC error code of a {@code tasks/result} that stopped waiting before the task ended (the
     * server's wait, {@link McpServerBuilder#taskResultWait}, ran out, or too many requests wait at
     * once). The task goes on: poll {@code tasks/get} and ask again. The data holds {@code taskId} and
     * {@code status}.
     */
    public static final int TASK_NOT_FINISHED = -32030;

    /**
     * The JSON-RPC error code of a call refused because the gate's store is unavailable (its database
     * is down, hung, full or read-only): nothing was done. Over Streamable HTTP it comes with HTTP 503
     * and, when retrying may help, {@code Retry-After}. The data holds {@code fault} (a
     * {@link dev.toolgate.spi.StoreFault} name), {@code retryable}, and for a retryable fault
     * {@code retryAfterSeconds} and {@code retryAfterMillis}. Over stdio the same refusal is a tool
     * result with {@code isError: true} and {@code status: "unavailable"}, which a model can relay.
     */
    public static final int STORE_UNAVAILABLE = -32031;

    /** The default Streamable HTTP endpoint path. */
    public static final String DEFAULT_ENDPOINT = "/mcp";

    private final McpAsyncServer server;
    private final ToolBridge bridge;
    private final HttpTransport http;
    private final String endpointPath;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch inputEnded;
    private final PrintStream restoreOut;
    private final CatalogDispatch catalog;

    ToolgateMcpServer(McpAsyncServer server, ToolBridge bridge, HttpTransport http, String endpointPath,
                              CountDownLatch inputEnded, PrintStream restoreOut, CatalogDispatch catalog) {
        this.catalog = catalog;
        this.server = server;
        this.bridge = bridge;
        this.http = http;
        this.endpointPath = endpointPath;
        this.inputEnded = inputEnded;
        this.restoreOut = restoreOut;
    }

    /**
     * A server over standard input and output, every call made as {@code principal} (the user who
     * launched the client). stdout carries only protocol messages: by default {@link System#out} is
     * redirected to {@link System#err} while the server runs, so a stray print cannot corrupt the stream.
     */
    public static McpStdioBuilder stdio(Toolgate toolgate, Principal principal) {
        return new McpStdioBuilder(toolgate, principal);
    }

    /**
     * A Streamable HTTP server; each request's principal comes from its {@code Authorization: Bearer}
     * token through {@code authenticator}. Binds to 127.0.0.1 unless told otherwise.
     */
    public static McpHttpBuilder http(Toolgate toolgate, McpAuthenticator authenticator) {
        return new McpHttpBuilder(toolgate, authenticator);
    }

    /**
     * The MCP endpoint as a servlet, for a host's own servlet container (Spring Boot, Jetty, Tomcat):
     * the MCP SDK's servlet transport behind Toolgate's checks; each request's principal from
     * {@code authenticator} ({@link McpRequestAuthenticator#bearer} for bearer tokens). Needs
     * {@code jakarta.servlet-api} 6 on the classpath. See {@link McpServletEndpoint}.
     */
    public static McpServletBuilder servlet(Toolgate toolgate, McpRequestAuthenticator authenticator) {
        return new McpServletBuilder(toolgate, authenticator);
    }

    /** The HTTP endpoint, such as {@code http://127.0.0.1:8765/mcp}; empty for stdio. */
    public Optional<URI> endpoint() {
        if (http == null) {
            return Optional.empty();
        }
        InetSocketAddress address = http.address();
        String host = address.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return Optional.of(URI.create("http://" + host + ":" + address.getPort() + endpointPath));
    }

    /** The bound HTTP port, or -1 for stdio. */
    public int port() {
        return http == null ? -1 : http.address().getPort();
    }

    /** HTTP sessions with an open event stream; 0 for stdio. */
    int openStreams() {
        return http == null ? 0 : http.openStreams();
    }

    /** The SDK's server (for tests: to send notifications). */
    McpAsyncServer sdkServer() {
        return server;
    }

    /** HTTP sessions open now; 0 for stdio. */
    int openSessions() {
        return http == null ? 0 : http.sessions();
    }

    /** HTTP workers serving a request now; 0 for stdio. */
    int busyWorkers() {
        return http == null ? 0 : http.busyWorkers();
    }

    /** HTTP requests waiting for a worker now; 0 for stdio. */
    int queuedRequests() {
        return http == null ? 0 : http.queuedRequests();
    }

    /** Resource subscriptions held now (ended sessions' dropped first); 0 without a catalog. */
    int catalogSubscriptions() {
        return catalog == null ? 0 : catalog.subscriptionCount();
    }

    /**
     * Blocks until the server stops: for stdio when standard input ends (the client went away) or
     * {@link #close()} is called; for HTTP when {@link #close()} is called.
     */
    public void awaitTermination() throws InterruptedException {
        if (inputEnded == null) {
            stopped.await();
            return;
        }
        while (stopped.getCount() > 0 && !inputEnded.await(200, TimeUnit.MILLISECONDS)) {
            // wait for either
        }
    }

    /** What {@code tools/list} offers {@code principal} now (what the stdio server's start-up line counts). */
    ToolBridge.Listed listedFor(dev.toolgate.access.Principal principal) {
        return bridge.listedFor(principal);
    }

    /** Stops serving: ends sessions and releases the port or the streams. Does not close the gate. */
    @Override
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        stopped.countDown();
        bridge.detach();
        if (catalog != null) {
            catalog.close();
        }
        try {
            server.closeGracefully().block(Duration.ofSeconds(30));
        } catch (RuntimeException e) {
            LOG.debug("Closing the MCP server: {}", e.toString());
        }
        if (http != null) {
            http.stop();
        }
        if (restoreOut != null) {
            System.setOut(restoreOut);
        }
        LOG.info("MCP server stopped");
    }
}
