package dev.toolgate.langchain4j;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A reversible mapping between the gate's qualified tool names ({@code incident.create},
 * {@code mcp:github.create_issue}) and the function names chat APIs accept,
 * {@code ^[a-zA-Z0-9_-]{1,64}$}. A dot becomes {@code __} and a colon {@code _x_}
 * ({@code incident.create} is offered as {@code incident__create}); letters, digits, {@code _} and
 * {@code -} stay. The encoding alone is not injective ({@code a_.b} and {@code a._b} both become
 * {@code a___b}), so a mapping is built for a whole set of names and refuses collisions; the way back
 * is a table lookup, never string parsing, so a function name the model invents maps to nothing.
 */
public final class ToolNames {

    private static final Pattern WIRE = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Pattern GATE = Pattern.compile("[A-Za-z0-9_.:-]+");

    private final Map<String, String> toWire;
    private final Map<String, String> toGate;

    private ToolNames(Map<String, String> toWire, Map<String, String> toGate) {
        this.toWire = toWire;
        this.toGate = toGate;
    }

    /**
     * The mapping of a set of gate names.
     *
     * @throws ToolNameException if a name holds a character outside {@code A-Za-z0-9_.:-}, maps to a
     *                           function name longer than 64 characters, or two names map to the same
     *                           function name; nothing is mapped then
     */
    public static ToolNames of(Collection<String> qualifiedNames) {
        Map<String, String> toWire = new TreeMap<>();
        Map<String, String> toGate = new TreeMap<>();
        for (String name : qualifiedNames) {
            String wire = encode(name);
            String other = toGate.putIfAbsent(wire, name);
            if (other != null && !other.equals(name)) {
                throw new ToolNameException("Tool names '" + other + "' and '" + name + "' both map to the function name '"
                        + wire + "'; rename one of them (plugin id or tool name)");
            }
            toWire.put(name, wire);
        }
        return new ToolNames(Collections.unmodifiableMap(toWire), Collections.unmodifiableMap(toGate));
    }

    /**
     * The mapping of the names that can be mapped: a name that cannot be encoded, or every name of a
     * colliding group, is left out and reported to {@code problems} (fail closed: a tool whose name
     * would be ambiguous is not offered at all).
     */
    static ToolNames lenient(Collection<String> qualifiedNames, java.util.function.Consumer<String> problems) {
        Map<String, java.util.List<String>> byWire = new TreeMap<>();
        for (String name : new java.util.TreeSet<>(qualifiedNames)) {
            try {
                byWire.computeIfAbsent(encode(name), k -> new java.util.ArrayList<>()).add(name);
            } catch (ToolNameException e) {
                problems.accept(e.getMessage());
            }
        }
        Map<String, String> toWire = new TreeMap<>();
        Map<String, String> toGate = new TreeMap<>();
        byWire.forEach((wire, names) -> {
            if (names.size() > 1) {
                problems.accept("Tool names " + names + " all map to the function name '" + wire + "'");
            } else {
                toWire.put(names.get(0), wire);
                toGate.put(wire, names.get(0));
            }
        });
        return new ToolNames(Collections.unmodifiableMap(toWire), Collections.unmodifiableMap(toGate));
    }

    /**
     * The function name of one gate name, without collision checking.
     *
     * @throws ToolNameException if the name is empty, holds a character outside {@code A-Za-z0-9_.:-}
     *                           or maps to more than 64 characters
     */
    public static String encode(String qualifiedName) {
        if (qualifiedName == null || !GATE.matcher(qualifiedName).matches()) {
            throw new ToolNameException("Tool name " + quote(qualifiedName)
                    + " cannot be offered to a chat API: only A-Za-z0-9 _ . : - are mapped");
        }
        String wire = qualifiedName.replace(".", "__").replace(":", "_x_");
        if (!WIRE.matcher(wire).matches()) {
            throw new ToolNameException("Tool name " + quote(qualifiedName) + " maps to the function name '" + wire
                    + "' of " + wire.length() + " characters; chat APIs accept at most 64");
        }
        return wire;
    }

    /** The function name of a gate name in this mapping. */
    public Optional<String> wireName(String qualifiedName) {
        return Optional.ofNullable(toWire.get(qualifiedName));
    }

    /** The gate name a function name stands for; empty for a name this mapping did not hand out. */
    public Optional<String> qualifiedName(String wireName) {
        return Optional.ofNullable(wireName == null ? null : toGate.get(wireName));
    }

    /** Gate name to function name, sorted by gate name. */
    public Map<String, String> asMap() {
        return toWire;
    }

    private static String quote(String name) {
        if (name == null) {
            return "null";
        }
        String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
        return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
