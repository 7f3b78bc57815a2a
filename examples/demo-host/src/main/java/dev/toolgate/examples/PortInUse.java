package dev.toolgate.examples;

import java.net.BindException;
import java.util.Locale;
import java.util.Objects;

/**
 * A server of the examples could not listen on its address: one line for the person who started it
 * (which server, which address, why, and the option that changes it), carried without a stack trace.
 * The mains print {@link #getMessage()} and exit with status 1.
 */
public final class PortInUse extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private PortInUse(String message) {
        super(message, null, false, false); // no stack trace: the message says everything
    }

    /** Starts one server. */
    @FunctionalInterface
    public interface Start<T> {
        T start() throws Exception;
    }

    /**
     * Runs {@code start}; if it fails because {@code host:port} cannot be bound, throws a {@link PortInUse}
     * naming {@code server} and {@code option}; any other failure passes through unchanged.
     *
     * @param server what is starting ("the MCP server", "the operator console")
     * @param option the command-line option that sets the port ("--port", "--console-port")
     */
    public static <T> T listen(String server, String host, int port, String option, Start<T> start) throws Exception {
        try {
            return start.start();
        } catch (Exception e) {
            BindException bind = bindFailure(e);
            if (bind == null) {
                throw e;
            }
            throw of(server, host, port, option, bind);
        }
    }

    /** The one-line failure for {@code server} on {@code host:port}, from the bind failure {@code cause}. */
    public static PortInUse of(String server, String host, int port, String option, BindException cause) {
        Objects.requireNonNull(option, "option");
        String reason = cause.getMessage() == null ? "" : cause.getMessage();
        String where = host + ":" + port;
        if (reason.toLowerCase(Locale.ROOT).contains("in use")) {
            return new PortInUse(server + " cannot start: port " + port + " is already in use on " + host
                    + " (is another server still running?); choose another with " + option + " N, or "
                    + option + " 0 for any free port");
        }
        return new PortInUse(server + " cannot listen on " + where + ": " + reason + "; choose another port with " + option + " N");
    }

    /** The {@link BindException} in {@code failure}'s causes (Jetty and the MCP adapter wrap it), or null. */
    public static BindException bindFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BindException bind) {
                return bind;
            }
        }
        return null;
    }
}
