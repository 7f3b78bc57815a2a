/**
 * The Spring Boot starter's auto-configuration: a {@link dev.toolgate.Toolgate} bean from the
 * {@code toolgate.*} properties ({@link dev.toolgate.spring.boot.ToolgateProperties}) with its store on
 * the application's {@code DataSource}; the principal of each request from Spring Security
 * ({@link dev.toolgate.spring.boot.ToolgatePrincipalMapper}) or the application's
 * {@link dev.toolgate.spring.boot.CurrentPrincipal}; the Spring AI callbacks and advisor; the operator
 * console and the MCP endpoint in the application's servlet container; metrics, health and info. The
 * application changes the gate's builder with {@link dev.toolgate.spring.boot.ToolgateBuilderCustomizer}
 * beans and replaces any bean by defining its own.
 */
package dev.toolgate.spring.boot;
