package dev.toolgate.console;

/** A request the console refuses: an HTTP status, a stable code and a message for people. */
class ConsoleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final int status;
    final String code;
    final String field;

    ConsoleException(int status, String code, String message) {
        this(status, code, message, null);
    }

    ConsoleException(int status, String code, String message, String field) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
    }

    static ConsoleException badRequest(String field, String message) {
        return new ConsoleException(400, "bad_request", message, field);
    }

    static ConsoleException notFound() {
        return new ConsoleException(404, "not_found", "No such page or resource.");
    }
}
