/**
 * The tool model: {@link dev.toolgate.tool.Tool} (name, description, typed input with a generated
 * JSON Schema, {@link dev.toolgate.tool.Effect}, required access rules, dry-run, execute, revert),
 * the {@link dev.toolgate.tool.ToolProvider} plugin SPI, the {@link dev.toolgate.tool.ToolRegistry}
 * that validates registrations at boot, and {@link dev.toolgate.tool.ToolDescriptor}, the one
 * serializer every transport uses.
 */
package dev.toolgate.tool;
