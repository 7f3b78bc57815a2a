package dev.toolgate.context.web;

import java.util.Objects;

/**
 * The SSRF guard refused a URL, before or after resolving its host: {@link #reason()} says why (an
 * internal address, a credential in the URL, a scheme other than http/https, an ambiguous form). The
 * URL itself is not repeated in the message, since its query may carry secrets.
 */
public class UrlRefusedException extends ProbeException {

    private static final long serialVersionUID = 1L;

    private final String reason;

    /** A refusal for the given reason. */
    public UrlRefusedException(String reason) {
        super(Kind.REFUSED, "URL refused: " + Objects.requireNonNull(reason, "reason"));
        this.reason = reason;
    }

    /** Why the URL was refused, in plain words. */
    public String reason() {
        return reason;
    }
}
