package dev.toolgate.context.web;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What one probe saw: the status, a safe subset of the response headers and a capped body sample.
 * A redirect is reported, never followed.
 *
 * @param status        the HTTP status code
 * @param statusText    the reason phrase of the status line (may be empty)
 * @param redirected    true for a 3xx redirect (any 3xx but 304 Not Modified); its target is in
 *                      {@code location} and was not requested
 * @param location      the {@code Location} header, if any (JSON null when absent)
 * @param contentType   the {@code Content-Type} header, if any (JSON null when absent)
 * @param headers       the allowed headers (lower-case names, repeated values joined with
 *                      {@code ", "}); never {@code set-cookie} or authentication headers
 * @param bodySample    the start of the body decoded as UTF-8 (malformed bytes replaced), a marker
 *                      such as {@code [binary body ...]} for a binary body, or empty for none
 * @param bodyTruncated true if the body is longer than the sample cap and was not read to its end
 */
public record ProbeResult(int status, String statusText, boolean redirected, Optional<String> location,
        Optional<String> contentType,
        Map<String, String> headers, String bodySample, boolean bodyTruncated) {

    /** Checks the components; see the class description for what each must hold. */
    public ProbeResult {
        Objects.requireNonNull(statusText, "statusText");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(contentType, "contentType");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(bodySample, "bodySample");
    }
}
