package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.jdbc.source.DatabaseSource;
import dev.toolgate.openapi.OpenApiSource;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Function;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import tools.jackson.databind.JsonNode;

/**
 * The demo's tool-source section: two databases and an HTTP API put behind the gate as tool sources.
 * {@code db:oncall} is an embedded H2 database with the on-call rota; {@code db:warehouse} points at a
 * PostgreSQL that is not there, to show how an unreachable source is reported without holding up the
 * rest; {@code openapi:statuspage} is the status page API of {@link StatusPageApi}, one tool per
 * operation of its OpenAPI document ({@link StatusPageTour}). bob reads the rota through the read-only
 * query tool, a write he slips in is refused before it reaches the database, and carol's model is
 * handed the actions guide.
 */
final class SourcesTour {

    private final Toolgate gate;
    private final PrintStream out;
    private final Function<Principal, CallContext> as;
    private final StatusPageApi statusPage;

    SourcesTour(Toolgate gate, PrintStream out, Function<Principal, CallContext> as, StatusPageApi statusPage) {
        this.gate = gate;
        this.out = out;
        this.as = as;
        this.statusPage = statusPage;
    }

    /**
     * Adds the two database sources and the status page API (its document and its base URL at
     * {@code statusPage}, its token from the gate's SecretResolver) to {@code builder}.
     */
    static ToolgateBuilder addSources(ToolgateBuilder builder, StatusPageApi statusPage) {
        JdbcDataSource oncall = new JdbcDataSource();
        oncall.setURL("jdbc:h2:mem:oncall;DB_CLOSE_DELAY=-1");
        try (Connection c = oncall.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS rota (system_id VARCHAR(20) PRIMARY KEY, engineer VARCHAR(40), phone VARCHAR(20))");
            s.execute("MERGE INTO rota KEY (system_id) VALUES ('billing', 'Dana', '+1 555 0101'), ('db', 'Eli', '+1 555 0102'),"
                    + " ('web', 'Fran', '+1 555 0103')");
        } catch (SQLException e) {
            throw new IllegalStateException("the demo's on-call database could not be set up", e);
        }
        PGSimpleDataSource absent = new PGSimpleDataSource();
        absent.setServerNames(new String[] {"127.0.0.1"});
        absent.setPortNumbers(new int[] {1}); // nothing listens here: the source is reported unavailable
        absent.setDatabaseName("warehouse");
        absent.setConnectTimeout(2);
        return builder
                .source(DatabaseSource.builder("oncall", oncall).displayName("On-call rota").requires("catalog.system.read")
                        .maxRows(20).build())
                .source(DatabaseSource.builder("warehouse", absent).displayName("Data warehouse")
                        .requires("catalog.system.read").build())
                .source(OpenApiSource.builder("statuspage").displayName("Status page")
                        .documentUrl(statusPage.documentUrl())
                        .server(statusPage.baseUrl()) // the only base URL requests go to; the document's servers are ignored
                        .bearerSecret("statuspage-token")
                        .requires("incident.incident.read") // bob and carol read the status page,
                        .requiresFor("postStatusUpdate", "incident.incident.manage") // only carol changes it
                        .requiresFor("deleteMaintenanceWindow", "incident.incident.manage")
                        .build())
                // the databases need no secret; the API's token comes from the host's vault (here, a map)
                .secrets(SecretResolver.of(Map.of("statuspage-token", statusPage.token())));
    }

    void run() {
        out.println("the sources and their state:");
        for (SourceStatus source : gate.listSources()) {
            out.printf("  %-19s %-15s %-11s %d tool(s)%s%n", source.id(), source.displayName(),
                    source.state().name().toLowerCase(java.util.Locale.ROOT), source.tools(),
                    source.error() == null ? "" : "  <- " + source.error());
        }
        CallContext bob = as.apply(DemoPrincipals.BOB);
        JsonNode rota = ((Executed) gate.call(bob, "db:oncall.query",
                "{\"sql\":\"SELECT system_id, engineer FROM rota WHERE system_id <> ? ORDER BY system_id\",\"params\":[\"web\"]}"))
                .result();
        out.println("bob queries db:oncall (a READ, it runs directly) -> " + rota.get("rows") + ", truncated: "
                + rota.get("truncated"));
        out.println("bob slips a write into the query:");
        try {
            gate.call(bob, "db:oncall.query", "{\"sql\":\"SELECT 1; DELETE FROM rota\"}");
            out.println("  (unexpectedly run)");
        } catch (ToolExecutionException e) {
            out.println("  failed and recorded: " + e.getMessage().replaceFirst("^\\w+: ", ""));
        }
        try {
            gate.call(bob, "db:warehouse.query", "{\"sql\":\"SELECT 1\"}");
        } catch (dev.toolgate.call.SourceUnavailableException e) {
            out.println("bob calls db:warehouse.query -> source unavailable: " + e.sourceId());
        } catch (dev.toolgate.call.UnknownToolException e) {
            out.println("bob calls db:warehouse.query -> unknown tool (the source never listed its tools)");
        }
        new StatusPageTour(gate, out, as, statusPage).run();
        out.println("the actions guide carol's model is given (an excerpt):");
        String guide = gate.guide(as.apply(DemoPrincipals.CAROL));
        section(guide, "## db:oncall").lines().limit(12).forEach(line -> out.println("  | " + line));
        out.println("  | ...");
        section(guide, "## " + StatusPageTour.SOURCE).lines() // without the descriptions
                .filter(line -> line.startsWith("#") || line.startsWith("- ") || line.startsWith("Calls "))
                .forEach(line -> out.println("  | " + line));
    }

    /** The section of {@code guide} under {@code heading}, up to the next section. */
    private static String section(String guide, String heading) {
        int from = guide.indexOf(heading);
        if (from < 0) {
            return "(no section " + heading + ")";
        }
        int to = guide.indexOf("\n## ", from + heading.length());
        return guide.substring(from, to < 0 ? guide.length() : to).strip();
    }
}
