/**
 * The MCP adapter: serves a {@link dev.toolgate.Toolgate}'s governed tools over the Model Context
 * Protocol, over stdio or Streamable HTTP. Start with {@link dev.toolgate.mcp.ToolgateMcpServer};
 * hosts serving HTTP implement {@link dev.toolgate.mcp.McpAuthenticator}. Everything else in this
 * package is internal.
 */
package dev.toolgate.mcp;
