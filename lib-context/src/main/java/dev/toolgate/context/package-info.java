/**
 * Read-only grounding tools a host adds with one line: {@code docs.listDocs}, {@code docs.searchDocs}
 * and {@code docs.getDoc} over the host's own Markdown documentation
 * ({@link dev.toolgate.context.docs}), and {@code web.probeUrl}, one request behind an SSRF guard
 * ({@link dev.toolgate.context.web}).
 */
package dev.toolgate.context;
