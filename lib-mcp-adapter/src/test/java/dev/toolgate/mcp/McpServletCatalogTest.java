package dev.toolgate.mcp;

import dev.toolgate.Toolgate;

/**
 * {@link McpCatalogHttpTest} (resources, templates, subscriptions, prompts and completion per
 * principal; hidden entries answered byte for byte as unknown ones) against the servlet endpoint on an
 * embedded Jetty 12.
 */
class McpServletCatalogTest extends McpCatalogHttpTest {

    @Override
    ServedMcp serve(Toolgate gate, McpAuthenticator authenticator, McpCatalog catalog) {
        McpServletBuilder builder = ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(authenticator));
        return ServedMcp.jetty((catalog == null ? builder : builder.catalog(catalog)).build());
    }
}
