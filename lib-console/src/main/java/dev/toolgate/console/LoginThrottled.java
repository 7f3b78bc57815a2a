package dev.toolgate.console;

/** 429: too many failed sign-ins from one address; says when to try again. */
final class LoginThrottled extends ConsoleException {

    private static final long serialVersionUID = 1L;
    final long retryAfterSeconds;

    LoginThrottled(long retryAfterSeconds) {
        super(429, "too_many_logins", "Too many failed sign-ins from this address; try again in "
                + retryAfterSeconds + " s.");
        this.retryAfterSeconds = retryAfterSeconds;
    }
}
