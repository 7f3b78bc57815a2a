/**
 * Remote MCP servers as tool sources: {@link dev.toolgate.mcp.remote.McpSource} connects to a server
 * over Streamable HTTP or stdio with the official MCP Java SDK client and offers its tools to the
 * gate, which governs them like tools written in code. Everything else in this package is internal.
 */
package dev.toolgate.mcp.remote;
