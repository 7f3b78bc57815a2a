package dev.toolgate.springai;

import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The mapping between the gate's qualified tool names ({@code incident.create}, source tools such as
 * {@code mcp:github.search_issues}) and the names chat APIs accept, {@code ^[a-zA-Z0-9_-]{1,64}$}.
 *
 * <p>The rule is readable: every {@code .} becomes {@code __} and every {@code :} becomes {@code _}, so
 * {@code incident.create} is offered as {@code incident__create} and {@code mcp:github.x} as
 * {@code mcp_github__x}. Any other character outside {@code [a-zA-Z0-9_-]}, an empty name or a chat name
 * longer than 64 characters is refused, never trimmed or replaced. The mapping is reversible through
 * {@link #assign(Collection)}: a table from chat name back to exactly one qualified name, built only
 * after checking that no two tools share a chat name (for example {@code a.b} and {@code a__b}). The gate
 * only ever sees qualified names from that table.
 */
public final class ChatToolNames {

    /** What chat APIs (OpenAI, Anthropic, Gemini, ...) accept as a function name. */
    public static final Pattern CHAT_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    private ChatToolNames() {
    }

    /**
     * The chat name of one qualified tool name.
     *
     * @throws ChatToolNameException if the result is not a valid chat name (says which character or why)
     */
    public static String chatName(String qualifiedName) {
        if (qualifiedName == null || qualifiedName.isEmpty()) {
            throw new ChatToolNameException("A tool name is empty; it cannot be offered to a chat model");
        }
        StringBuilder out = new StringBuilder(qualifiedName.length() + 8);
        for (int i = 0; i < qualifiedName.length(); i++) {
            char c = qualifiedName.charAt(i);
            if (c == '.') {
                out.append("__");
            } else if (c == ':') {
                out.append('_');
            } else if (c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
                out.append(c);
            } else {
                throw new ChatToolNameException("Tool '" + printable(qualifiedName) + "' has the character "
                        + String.format("U+%04X", (int) c) + " at index " + i
                        + ", which a chat tool name cannot hold (allowed: a-zA-Z0-9_- and the separators . and :)");
            }
        }
        String name = out.toString();
        if (!CHAT_NAME.matcher(name).matches()) {
            throw new ChatToolNameException("Tool '" + printable(qualifiedName) + "' maps to the chat name '" + name + "' ("
                    + name.length() + " characters), which is not 1-64 characters of a-zA-Z0-9_-; shorten the tool's name");
        }
        return name;
    }

    /**
     * The table from chat name back to qualified name for {@code qualifiedNames}, in a stable order (code
     * tools before source tools, then by name).
     *
     * @throws ChatToolNameException if a name cannot be mapped or two names map to the same chat name
     */
    public static Map<String, String> assign(Collection<String> qualifiedNames) {
        Objects.requireNonNull(qualifiedNames, "qualifiedNames");
        Map<String, String> table = new LinkedHashMap<>();
        for (String qualified : ordered(qualifiedNames)) {
            String chat = chatName(qualified);
            String other = table.putIfAbsent(chat, qualified);
            if (other != null && !other.equals(qualified)) {
                throw new ChatToolNameException("Tools '" + printable(other) + "' and '" + printable(qualified)
                        + "' both map to the chat name '" + chat + "'; rename one of them");
            }
        }
        return table;
    }

    /** Code tools first (no {@code :}), then source tools, each group by name: who wins a clash is stable. */
    static List<String> ordered(Collection<String> names) {
        return names.stream()
                .sorted(Comparator.comparing((String n) -> n != null && n.indexOf(':') >= 0)
                        .thenComparing(Comparator.nullsFirst(Comparator.<String>naturalOrder())))
                .toList();
    }

    /** A name for an error message: control characters escaped, at most 200 characters. */
    static String printable(String name) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < name.length() && out.length() < 200; i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return name.length() > 200 ? out + "..." : out.toString();
    }
}
