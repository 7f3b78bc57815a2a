package dev.toolgate.codemode;

import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.SourceSection;
import org.graalvm.polyglot.Value;

/**
 * Why a script failed, and where in its source (1-based; 0 when unknown).
 */
record CodeError(Kind kind, String message, int line, int column) {

    /** The kinds of failure. */
    enum Kind { SYNTAX, EXCEPTION, TIMEOUT, STATEMENT_LIMIT, SOURCE_TOO_LARGE, STACK_OVERFLOW, OUT_OF_MEMORY, NOT_JSON }

    /** A message the model can act on: {@code "SyntaxError at 2:10: Expected an operand but found ;"}. */
    String describe() {
        String at = line > 0 ? " at " + line + ":" + column : "";
        return switch (kind) {
            case SYNTAX -> "SyntaxError" + at + ": " + message;
            case EXCEPTION, STACK_OVERFLOW -> {
                int colon = message.indexOf(": ");
                boolean named = colon > 0 && message.substring(0, colon).matches("[A-Za-z_$][A-Za-z0-9_$]*");
                yield named ? message.substring(0, colon) + at + message.substring(colon) : "Error" + at + ": " + message;
            }
            default -> message;
        };
    }

    /**
     * The error a script's own code raised: a syntax error or what it threw, with where in the user's
     * source (named {@code sourceName}, whose first line carries a {@code prefix}-character wrapper).
     */
    static CodeError of(PolyglotException e, String sourceName, int prefix) {
        SourceSection where = userLocation(e, sourceName);
        int line = where == null ? 0 : where.getStartLine();
        int column = where == null ? 0 : where.getStartColumn() - (line == 1 ? prefix : 0);
        if (e.isSyntaxError()) {
            return new CodeError(Kind.SYNTAX, syntaxMessage(e.getMessage(), sourceName), line, Math.max(column, 1));
        }
        String message = thrown(e);
        boolean stack = message.startsWith("RangeError: Maximum call stack size exceeded");
        return new CodeError(stack ? Kind.STACK_OVERFLOW : Kind.EXCEPTION, message, line, Math.max(column, 0));
    }

    /**
     * "Name: message" of what the script threw: the thrown object's own name and message when they
     * are strings (reading them may run the script's getters, still under its limits), else the
     * engine's message.
     */
    private static String thrown(PolyglotException e) {
        String fallback = e.getMessage() == null ? "Error" : e.getMessage();
        try {
            Value guest = e.getGuestObject();
            if (guest != null && guest.hasMembers()) {
                Value name = guest.getMember("name");
                Value message = guest.getMember("message");
                if (name != null && name.isString() && message != null && message.isString()) {
                    return name.asString() + ": " + message.asString();
                }
            }
        } catch (PolyglotException | IllegalStateException | UnsupportedOperationException ignored) {
            // a hostile getter, or the context is gone: the engine's message is enough
        }
        return fallback;
    }

    /** Where in the user's code an error arose: the innermost frame of the script's source. */
    private static SourceSection userLocation(PolyglotException e, String sourceName) {
        SourceSection where = e.getSourceLocation();
        if (where != null && sourceName.equals(where.getSource().getName())) {
            return where;
        }
        for (PolyglotException.StackFrame frame : e.getPolyglotStackTrace()) {
            SourceSection section = frame.getSourceLocation();
            if (frame.isGuestFrame() && section != null && sourceName.equals(section.getSource().getName())) {
                return section;
            }
        }
        return null;
    }

    /** "SyntaxError: script.js:1:37 Expected an operand but found ;\n(snippet)" becomes "Expected an operand but found ;". */
    private static String syntaxMessage(String message, String sourceName) {
        String first = message == null ? "" : message.lines().findFirst().orElse("");
        String text = first.replaceFirst("^SyntaxError: ", "").replaceFirst("^" + java.util.regex.Pattern.quote(sourceName) + ":\\d+:\\d+ ", "");
        return text.isBlank() ? "invalid syntax" : text;
    }
}
