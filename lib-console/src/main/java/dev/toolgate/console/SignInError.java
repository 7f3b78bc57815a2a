package dev.toolgate.console;

/**
 * A refusal about signing in (401 without a session, 403 for the console's own sign-in when the
 * application signs people in). Its body also says how this console signs people in
 * ({@code "signIn": "console"} or {@code "host"}), so the page knows whether to show its sign-in form
 * before it has a session view.
 */
final class SignInError extends ConsoleException {

    private static final long serialVersionUID = 1L;
    final String signIn;

    SignInError(int status, String code, String message, String signIn) {
        super(status, code, message);
        this.signIn = signIn;
    }
}
