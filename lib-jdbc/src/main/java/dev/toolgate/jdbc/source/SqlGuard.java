package dev.toolgate.jdbc.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Decides, before anything reaches the database, whether a text is one read statement. It reads the
 * text the way the database would (string literals, quoted identifiers, comments) and refuses:
 * anything but one statement; a first word other than {@code SELECT}, {@code WITH}, {@code VALUES}
 * or {@code TABLE}; any word that writes, locks or changes the session anywhere in it (a data-modifying
 * CTE, {@code SELECT ... INTO}, {@code FOR UPDATE}); calls of functions with side effects; and every
 * construct two databases read differently (nested comments, backslashes in literals, dollar quotes,
 * back-ticks), because a text one reader takes for a comment another may run.
 *
 * <p>The guard fails closed: what it does not understand it refuses. It is one of three barriers;
 * the statement also runs in a read-only transaction that is always rolled back, and the host should
 * give the source a database user that may only read.
 */
final class SqlGuard {

    /** Words a read statement may start with. */
    private static final Set<String> FIRST_WORDS = Set.of("select", "with", "values", "table");

    /** Words that write, lock, run other code or change the session wherever they stand. */
    private static final Set<String> DENIED_WORDS = Set.of(
            "insert", "update", "delete", "merge", "upsert", "truncate", "drop", "alter", "create", "grant",
            "revoke", "copy", "call", "execute", "exec", "lock", "vacuum", "analyze", "analyse", "into", "listen",
            "notify", "unlisten", "set", "reset", "commit", "rollback", "savepoint", "prepare", "deallocate",
            "discard", "checkpoint", "reindex", "runscript", "shutdown", "pragma", "attach", "detach");

    /** Functions with side effects outside the transaction, or that run a query given as text. */
    private static final Set<String> DENIED_FUNCTIONS = Set.of(
            "set_config", "nextval", "setval", "sleep", "link_schema", "cancel_session",
            "abort_session", "load_extension", "readfile", "writefile", "sys_exec", "sys_eval", "shell",
            "exec", "execute", "xp_cmdshell", "benchmark", "get_lock", "release_lock", "dbms_pipe",
            "utl_http", "utl_file", "http_get", "http_post", "copy");

    /** Families of functions refused by prefix: server administration, files, large objects, dblink. */
    private static final List<String> DENIED_PREFIXES = List.of(
            "pg_", "lo_", "dblink", "file_", "csv", "txid_", "query_to_", "cursor_to_", "table_to_", "schema_to_",
            "database_to_", "xp_", "sp_", "sys_", "java_");

    /** How long a statement may be, in characters. */
    static final int MAX_LENGTH = 10_000;

    private final Set<String> extraDeniedFunctions;

    SqlGuard(Set<String> extraDeniedFunctions) {
        this.extraDeniedFunctions = Set.copyOf(extraDeniedFunctions);
    }

    /** A statement the guard refused: why, and where in the text (0-based), or -1 for the whole text. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final int offset;

        Refused(String reason, int offset) {
            super(reason);
            this.offset = offset;
        }

        int offset() {
            return offset;
        }

        /** The refusal as the model reads it. */
        String describe() {
            return "refused before it reached the database: " + getMessage()
                    + (offset >= 0 ? " (at character " + (offset + 1) + ")" : "")
                    + ". Only one read statement (SELECT, WITH, VALUES or TABLE) is accepted; pass values as params with ?";
        }
    }

    /** A word, a quoted name or a punctuation mark, with where it starts. */
    private record Token(Kind kind, String text, int offset) {
        boolean is(Kind k, String t) {
            return kind == k && text.equals(t);
        }
    }

    private enum Kind { WORD, QUOTED_NAME, STRING, NUMBER, PUNCT }

    /**
     * Checks {@code sql} and returns it without a trailing semicolon, ready to run.
     *
     * @throws Refused if the text is not one read statement the guard can vouch for
     */
    String check(String sql) throws Refused {
        if (sql == null || sql.isBlank()) {
            throw new Refused("the statement is empty", -1);
        }
        if (sql.length() > MAX_LENGTH) {
            throw new Refused("the statement is longer than " + MAX_LENGTH + " characters", -1);
        }
        List<Token> tokens = new ArrayList<>();
        int end = tokenize(sql, tokens);
        if (tokens.isEmpty()) {
            throw new Refused("the statement has only comments", -1);
        }
        Token first = tokens.stream().filter(t -> !t.is(Kind.PUNCT, "(")).findFirst()
                .orElseThrow(() -> new Refused("the statement has no words", 0));
        if (first.kind() != Kind.WORD || !FIRST_WORDS.contains(first.text())) {
            throw new Refused("it starts with " + quote(first) + ", not SELECT, WITH, VALUES or TABLE", first.offset());
        }
        for (int i = 0; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            Token next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
            if (token.kind() == Kind.WORD && DENIED_WORDS.contains(token.text())) {
                throw new Refused(quote(token) + " may write, lock or change the session", token.offset());
            }
            if (token.is(Kind.WORD, "for") && next != null && next.kind() == Kind.WORD
                    && Set.of("update", "share", "no", "key").contains(next.text())) {
                throw new Refused("FOR " + next.text().toUpperCase(Locale.ROOT) + " locks rows", token.offset());
            }
            if (token.is(Kind.WORD, "next") && next != null && next.is(Kind.WORD, "value")) {
                throw new Refused("NEXT VALUE FOR advances a sequence", token.offset());
            }
            if ((token.kind() == Kind.WORD || token.kind() == Kind.QUOTED_NAME) && next != null && next.is(Kind.PUNCT, "(")) {
                String name = token.text().toLowerCase(Locale.ROOT);
                if (deniedFunction(name)) {
                    throw new Refused("the function " + token.text() + " has effects outside the query", token.offset());
                }
            }
        }
        return sql.substring(0, end);
    }

    private boolean deniedFunction(String name) {
        if (DENIED_FUNCTIONS.contains(name) || extraDeniedFunctions.contains(name)) {
            return true;
        }
        for (String prefix : DENIED_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static String quote(Token token) {
        return token.kind() == Kind.WORD ? token.text().toUpperCase(Locale.ROOT) : "'" + token.text() + "'";
    }

    /**
     * Splits {@code sql} into tokens, skipping white space and comments. Returns where the statement
     * ends: the length of the text, or the position of one trailing semicolon.
     */
    private static int tokenize(String sql, List<Token> out) throws Refused {
        int n = sql.length();
        int i = 0;
        int end = -1;
        while (i < n) {
            char c = sql.charAt(i);
            if (end >= 0 && !Character.isWhitespace(c) && !sql.startsWith("--", i) && !sql.startsWith("/*", i)) {
                throw new Refused("there is more than one statement", end);
            }
            if (Character.isWhitespace(c)) {
                i++;
            } else if (sql.startsWith("--", i)) {
                int eol = indexOfLineEnd(sql, i);
                i = eol < 0 ? n : eol + 1;
            } else if (sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                if (close < 0) {
                    throw new Refused("a comment is not closed", i);
                }
                int nested = sql.indexOf("/*", i + 2);
                if (nested >= 0 && nested < close) {
                    throw new Refused("a comment inside a comment (databases read nesting differently)", nested);
                }
                i = close + 2;
            } else if (c == ';') {
                end = i;
                i++;
            } else if (c == '\'') {
                i = string(sql, i, i, out);
            } else if ((c == 'e' || c == 'E' || c == 'n' || c == 'N' || c == 'b' || c == 'B' || c == 'x' || c == 'X')
                    && i + 1 < n && sql.charAt(i + 1) == '\'') {
                i = string(sql, i + 1, i, out);
            } else if ((c == 'u' || c == 'U') && i + 1 < n && sql.charAt(i + 1) == '&') {
                throw new Refused("Unicode-escaped literals and names (U&) are not accepted", i);
            } else if (c == '"') {
                i = quotedName(sql, i, i, out);
            } else if (c == '`') {
                throw new Refused("back-ticks are not standard SQL quoting", i);
            } else if (c == '$') {
                throw new Refused("dollar quotes and $ parameters are not accepted", i);
            } else if (c == '\\') {
                throw new Refused("a backslash outside a literal", i);
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
                    i++;
                }
                if (i < n && sql.charAt(i) == '$') {
                    throw new Refused("dollar quotes and $ parameters are not accepted", i);
                }
                out.add(new Token(Kind.WORD, sql.substring(start, i).toLowerCase(Locale.ROOT), start));
            } else if (isDigit(c)) {
                // digits, a fraction and an exponent; a letter after them starts a word, as older PostgreSQL reads it
                int start = i;
                while (i < n && (isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                if (i + 1 < n && (sql.charAt(i) == 'e' || sql.charAt(i) == 'E')
                        && (isDigit(sql.charAt(i + 1)) || (i + 2 < n && "+-".indexOf(sql.charAt(i + 1)) >= 0 && isDigit(sql.charAt(i + 2))))) {
                    i += 2;
                    while (i < n && isDigit(sql.charAt(i))) {
                        i++;
                    }
                }
                out.add(new Token(Kind.NUMBER, sql.substring(start, i), start));
            } else if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT) {
                throw new Refused("a control or format character (U+" + String.format("%04X", (int) c) + ")", i);
            } else {
                out.add(new Token(Kind.PUNCT, String.valueOf(c), i));
                i++;
            }
        }
        return end >= 0 ? end : n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Line comments end at a line feed or a carriage return, as in every database. */
    private static int indexOfLineEnd(String sql, int from) {
        for (int i = from; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\n' || c == '\r') {
                return i;
            }
        }
        return -1;
    }

    /** A literal from the quote at {@code quote}; {@code ''} stands for a quote; backslashes are refused. */
    private static int string(String sql, int quote, int start, List<Token> out) throws Refused {
        return quoted(sql, quote, start, '\'', Kind.STRING, "a string literal", out);
    }

    /** A quoted name from the quote at {@code quote}; {@code ""} stands for a double quote. */
    private static int quotedName(String sql, int quote, int start, List<Token> out) throws Refused {
        return quoted(sql, quote, start, '"', Kind.QUOTED_NAME, "a quoted name", out);
    }

    /** Text between two {@code mark}s, a doubled mark standing for one; returns where it ends. */
    private static int quoted(String sql, int quote, int start, char mark, Kind kind, String what, List<Token> out)
            throws Refused {
        int i = quote + 1;
        StringBuilder text = new StringBuilder();
        while (true) {
            if (i >= sql.length()) {
                throw new Refused(what + " is not closed", start);
            }
            char c = sql.charAt(i);
            if (c == '\\') {
                throw new Refused("a backslash in " + what + " (databases read it differently); pass the value as a param", i);
            }
            if (c == mark) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == mark) {
                    text.append(mark);
                    i += 2;
                    continue;
                }
                out.add(new Token(kind, text.toString(), start));
                return i + 1;
            }
            text.append(c);
            i++;
        }
    }
}
