package dev.toolgate.context.web;

import java.util.Objects;

/**
 * A probe that did not produce a response: the URL was refused, the name did not resolve, the
 * connection or the TLS handshake failed, the deadline passed or the response was malformed. The
 * message names what was wrong in words a model can act on; {@link #kind()} says which of these it
 * was. Thrown by {@link UrlProbe#probe}; through the gate the call is recorded as failed with this
 * message.
 */
public class ProbeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Kind {
        /** The SSRF guard refused the URL or an address its host resolved to; see {@link UrlRefusedException}. */
        REFUSED,
        /** The host name did not resolve. */
        DNS_FAILURE,
        /** The TCP connection could not be made (refused, unreachable). */
        CONNECT_FAILED,
        /** The connect timeout or the total deadline passed. */
        TIMEOUT,
        /** The TLS handshake failed, including a certificate that does not match the host name. */
        TLS_FAILURE,
        /** The server's answer is not a well-formed HTTP/1.x response, or exceeds the header limits. */
        MALFORMED_RESPONSE,
        /** Any other I/O failure while talking to the server. */
        IO_FAILURE
    }

    private final Kind kind;

    /** A failure of the given kind with a message naming what was wrong. */
    public ProbeException(Kind kind, String message) {
        this(kind, message, null);
    }

    /** A failure of the given kind with a message naming what was wrong, and its cause. */
    public ProbeException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** What went wrong. */
    public Kind kind() {
        return kind;
    }
}
