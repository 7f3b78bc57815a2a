package dev.toolgate.codemode;

import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/** What a script's text names, for the one-line summary of its dry-run: a hint, not a guarantee. */
final class Scan {

    private Scan() {
    }

    /** The tools of {@code names} whose member access ({@code tools.a.b} or {@code tools.a["b"]}) appears in the code. */
    static List<String> toolsNamed(String code, Collection<String> names) {
        return names.stream().filter(name -> access(name).matcher(code).find()).sorted().toList();
    }

    private static Pattern access(String name) {
        int dot = name.indexOf('.');
        String plugin = dot < 0 ? name : name.substring(0, dot);
        String local = dot < 0 ? null : name.substring(dot + 1);
        String pluginAccess = "tools\\s*(?:\\.\\s*" + Pattern.quote(plugin) + "\\b|\\[\\s*[\"'`]" + Pattern.quote(plugin) + "[\"'`]\\s*\\])";
        if (local == null) {
            return Pattern.compile(pluginAccess);
        }
        return Pattern.compile(pluginAccess + "\\s*(?:\\.\\s*" + Pattern.quote(local) + "\\b|\\[\\s*[\"'`]"
                + Pattern.quote(local) + "[\"'`]\\s*\\])");
    }

    /** A line count and the named tools, e.g. {@code "Run a 4-line script that calls incident.create, incident.get"}. */
    static String summary(String code, Collection<String> names) {
        long lines = code.lines().filter(l -> !l.isBlank()).count();
        List<String> named = toolsNamed(code, names);
        return "Run a " + lines + "-line script" + (named.isEmpty() ? " that names no tool"
                : " that calls " + String.join(", ", named));
    }
}
