package dev.toolgate.console;

/**
 * What a person typed on the console's sign-in form.
 *
 * @param user          the user name as typed (trimmed; may be empty)
 * @param secret        the password or token as typed; never logged, never stored by the console
 * @param remoteAddress the client's address, for the host's own throttling or audit; may be empty
 */
public record ConsoleLogin(String user, String secret, String remoteAddress) {

    /** Checks the components; see the class description for what each must hold. */
    public ConsoleLogin {
        user = user == null ? "" : user;
        secret = secret == null ? "" : secret;
        remoteAddress = remoteAddress == null ? "" : remoteAddress;
    }

    /** Never shows the secret. */
    @Override
    public String toString() {
        return "ConsoleLogin[user=" + user + ", secret=***, remoteAddress=" + remoteAddress + "]";
    }
}
