package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds a stdio MCP server; see {@link ToolgateMcpServer#stdio(Toolgate, Principal)}. */
public final class McpStdioBuilder extends McpServerBuilder<McpStdioBuilder> {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    private final Principal principal;
    private InputStream in;
    private OutputStream out;
    private boolean redirectSystemOut = true;
    private int maxMessageBytes = 4 * 1024 * 1024;

    McpStdioBuilder(Toolgate toolgate, Principal principal) {
        super(toolgate);
        this.principal = Objects.requireNonNull(principal, "principal");
    }

    /** Streams to serve instead of the process's stdin and stdout (then nothing is redirected). */
    public McpStdioBuilder streams(InputStream in, OutputStream out) {
        this.in = Objects.requireNonNull(in, "in");
        this.out = Objects.requireNonNull(out, "out");
        return this;
    }

    /** Whether to point {@link System#out} at {@link System#err} while serving the real stdout (default true). */
    public McpStdioBuilder redirectSystemOut(boolean redirect) {
        this.redirectSystemOut = redirect;
        return this;
    }

    /** The longest message line accepted (default 4 MiB); longer lines get a JSON-RPC error. */
    public McpStdioBuilder maxMessageBytes(int bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
        }
        this.maxMessageBytes = bytes;
        return this;
    }

    /** Starts serving on a background thread; see {@link ToolgateMcpServer#awaitTermination()}. */
    public ToolgateMcpServer start() {
        InputStream input = in != null ? in : System.in;
        OutputStream output = out;
        PrintStream restore = null;
        if (output == null) {
            output = new FileOutputStream(FileDescriptor.out);
            if (redirectSystemOut) {
                restore = System.out;
                System.out.flush();
                System.setOut(System.err);
            }
        }
        ToolBridge bridge = new ToolBridge(toolgate, applyName(), permissionMode, principal, requestTimeout, toolNames, clientConsent());
        McpJsonMapper mapper = mapper(bridge);
        StdioOutput counted = new StdioOutput(output);
        StdioInput guarded = new StdioInput(input, counted, mapper, maxMessageBytes);
        StdioSerialSends transport = new StdioSerialSends(
                new StdioServerTransportProvider(mapper, guarded, counted, maxMessageBytes));
        CatalogDispatch catalogDispatch = catalogDispatch();
        TaskDispatch taskDispatch = taskDispatch(bridge, mapper, transport.consentChannel(guarded));
        StdioInput.Route catalogRoute = catalogDispatch == null ? null : catalogDispatch.stdioRoute(principal, transport, mapper);
        StdioInput.Route taskRoute = taskDispatch == null ? null : taskDispatch.stdioRoute(principal, transport, mapper);
        if (catalogRoute != null || taskRoute != null) { // before the SDK's transport starts reading
            guarded.route((checked, text) -> (taskRoute != null && taskRoute.offer(checked, text))
                    || (catalogRoute != null && catalogRoute.offer(checked, text)));
        }
        McpAsyncServer server;
        try {
            server = server(McpServer.async(transport), bridge, mapper, catalogDispatch);
        } catch (RuntimeException e) {
            if (restore != null) {
                System.setOut(restore); // a name collision, say: nothing serves, so stdout is the host's again
            }
            throw e;
        }
        bridge.attach(server);
        if (catalogDispatch != null) {
            catalogDispatch.attach(server, transport);
        }
        ToolBridge.Listed listed = bridge.listedFor(principal);
        LOG.info("MCP server on stdio for {}: tools/list offers {} tool(s) ({} of the gate's, {} added by the MCP "
                + "layer: apply, run and decision tools), permission mode {}", principal.key(), listed.total(),
                listed.gateTools(), listed.mcpTools(), permissionMode);
        return new ToolgateMcpServer(server, bridge, null, null, guarded.eof(), restore, catalogDispatch);
    }
}

