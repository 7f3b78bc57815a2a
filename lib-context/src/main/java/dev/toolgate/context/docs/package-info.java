/**
 * Documentation grounding: the host's own Markdown docs, bundled on the classpath or read from a directory,
 * indexed once at start-up ({@link dev.toolgate.context.docs.DocsIndex}) and served to a model as three
 * read-only tools ({@link dev.toolgate.context.docs.DocsTools}): {@code docs.listDocs} (the sitemap),
 * {@code docs.searchDocs} (BM25 keyword ranking with a note that tells the model when to stop searching)
 * and {@code docs.getDoc} (one page by slug).
 *
 * <p>The index is deterministic: the same files give the same pages, rankings and JSON on every instance.
 * Nothing is fetched at runtime; the docs are versioned with the host's build.
 */
package dev.toolgate.context.docs;
