/**
 * {@code web.probeUrl}: one safe look at a URL. {@link dev.toolgate.context.web.ProbeTools} contributes
 * the tool, {@link dev.toolgate.context.web.ProbeSettings} configures it, and
 * {@link dev.toolgate.context.web.UrlProbe} does the work behind
 * {@link dev.toolgate.context.web.SsrfGuard}, a pure function that fails closed.
 *
 * <p>A probe makes exactly one HTTP/1.1 request: the URL is parsed and checked, its host resolved once
 * and every address checked, and the connection goes to the checked address (no proxy, no second
 * lookup). Redirects are reported with their {@code Location}, never followed. Nothing identifying is
 * sent (no cookies, no credentials); the headers returned are an allow-list; the body is read up to a
 * cap; a total deadline bounds the whole probe. Failures are
 * {@link dev.toolgate.context.web.ProbeException}s of a named
 * {@link dev.toolgate.context.web.ProbeException.Kind}, recorded by the gate as failed calls.
 */
package dev.toolgate.context.web;
