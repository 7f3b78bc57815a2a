package dev.toolgate.call;

/** Whether a person is present in the session; decides how long proposals wait. */
public enum SessionKind {
    /** A person is in the conversation; proposals expire after the interactive TTL (10 minutes by default). */
    INTERACTIVE,
    /** An unattended run (an automation); proposals wait for the unattended TTL (24 hours by default). */
    UNATTENDED
}
