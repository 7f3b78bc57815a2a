/**
 * The tool model: {@link dev.toolgate.tool.Tool} (name, description, typed input with a generated
 * JSON Schema, {@link dev.toolgate.tool.Effect}, required access rules, dry-run, execute, revert),
 * the {@link dev.toolgate.tool.ToolProvider} plugin SPI, the {@link dev.toolgate.tool.ToolRegistry}
 * that validates registrations at boot, and {@link dev.toolgate.tool.ToolDescriptor}, the one
 * serializer every transport uses. A tool may return a {@link dev.toolgate.tool.ContentResult} of
 * {@link dev.toolgate.tool.Content} items (text, images, audio, resources) and talk back to an MCP
 * client during its execution through {@link dev.toolgate.tool.ToolContext#channel()}, a
 * {@link dev.toolgate.tool.ClientChannel} (progress, log messages, sampling, elicitation).
 */
package dev.toolgate.tool;
