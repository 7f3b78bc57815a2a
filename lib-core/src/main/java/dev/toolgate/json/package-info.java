/**
 * JSON utilities shared by the rest of Toolgate.
 *
 * <ul>
 *   <li>{@link dev.toolgate.json.Json}: the one Jackson 3 mapper, strict and bounded, with parse and write
 *       helpers.</li>
 *   <li>{@link dev.toolgate.json.CanonicalJson}: canonical JSON text in the style of RFC 8785 (JCS) and its
 *       SHA-256 hash, so equal documents hash equal whatever their key order or number spelling.</li>
 *   <li>{@link dev.toolgate.json.JsonTruncator}: structural truncation to a byte budget, dropping whole
 *       values and marking the result with {@code "_truncated": true}, so the output stays valid JSON.</li>
 *   <li>{@link dev.toolgate.json.Redactor}: redaction of secrets in JSON trees and free text, by key
 *       (whole words, so {@code access_token} is hidden and {@code max_tokens} is not) and by shape under
 *       any key (JWTs, HTTP credentials, private PEM blocks, provider API keys, URL passwords).</li>
 *   <li>{@link dev.toolgate.json.TextCap}: caps redacted free text (a tool's, a script's or a program's
 *       message) for a log line or a model, keeping its beginning and saying how much was cut.</li>
 *   <li>{@link dev.toolgate.json.FieldDiff} and {@link dev.toolgate.json.FieldChange}: before/after field
 *       differences addressed by JSON Pointer, for confirm cards.</li>
 * </ul>
 *
 * <p>All utilities are thread-safe and free of side effects: they never modify the trees they are given
 * and return new trees rather than views of their input.
 */
package dev.toolgate.json;
