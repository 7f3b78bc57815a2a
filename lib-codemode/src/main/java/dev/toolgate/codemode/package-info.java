/**
 * Codemode: the model writes a short JavaScript program against the governed tools; it runs in a
 * GraalJS sandbox as a durable execution that pauses for consent and resumes by replay. Start at
 * {@link dev.toolgate.codemode.Codemode}.
 */
package dev.toolgate.codemode;
