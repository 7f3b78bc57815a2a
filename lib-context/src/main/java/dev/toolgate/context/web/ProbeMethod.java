package dev.toolgate.context.web;

/** The HTTP methods a probe may use: both are safe and send no body. */
public enum ProbeMethod {
    /** Fetch the response with a capped body sample. */
    GET,
    /** Fetch the status and headers only. */
    HEAD
}
