package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import java.util.List;

/**
 * A stdio MCP server with the {@link CatalogFixtures} catalog, launched as a subprocess the way an MCP
 * client launches one. Arguments: the principal (alice, bob, carol) and {@code secrets} or
 * {@code nosecrets}. Two extra resources steer it from the client: reading {@code test://touch}
 * announces an update of {@code test://watched-resource}, then one of {@code test://static-text}; reading {@code test://revoke} makes the
 * resolver refuse the principal that resource from then on.
 */
public final class CatalogStdioTestServer {

    private CatalogStdioTestServer() {
    }

    public static void main(String[] args) throws Exception {
        Principal principal = Fixtures.TOKENS.get(args[0] + "-token");
        CatalogFixtures fixtures = new CatalogFixtures(args[1].equals("secrets"));
        CatalogFixtures.RevocableResolver resolver = new CatalogFixtures.RevocableResolver();
        McpCatalog catalog = fixtures.catalog
                .add(McpResource.builder("test://touch", "touch").reader(r -> {
                    fixtures.catalog.resourceUpdated("test://watched-resource");
                    fixtures.catalog.resourceUpdated("test://static-text"); // the control: sent after, in order
                    return List.of(McpContents.text(r.uri(), "text/plain", "touched"));
                }).build())
                .add(McpResource.builder("test://revoke", "revoke").reader(r -> {
                    resolver.revoked.add(r.principal().key() + "/watched");
                    return List.of(McpContents.text(r.uri(), "text/plain", "revoked"));
                }).build());
        try (Toolgate gate = CatalogFixtures.gate(resolver)) {
            ToolgateMcpServer server = ToolgateMcpServer.stdio(gate, principal).catalog(catalog).start();
            server.awaitTermination();
            server.close();
        }
        System.exit(0);
    }
}
