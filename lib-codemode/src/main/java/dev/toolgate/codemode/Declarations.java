package dev.toolgate.codemode;

import dev.toolgate.tool.ToolDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * TypeScript declarations of a set of tools, as {@code codemode.describe} returns them: a
 * {@code declare const tools} whose members follow the sandbox's naming (a tool's name is split at
 * its first dot into plugin and local name), each tool a method taking its input schema's type and
 * returning its output schema's (or {@code unknown}), with its title, description and effect as a
 * doc comment. Deterministic, valid for {@code tsc --strict}, and capped in size: tools that do not
 * fit are named in a closing comment.
 */
final class Declarations {

    /** The default cap on the declarations' size. */
    static final int DEFAULT_MAX_BYTES = 64 * 1024;
    /** Room for the header and the list of tools left out. */
    static final int MIN_BYTES = 2 * 1024;
    private static final int OMITTED_LIST_CHARS = 600;

    private static final String HEADER = """
            // The tools your code may call, as tools.<plugin>.<name>(input). Each call is synchronous and
            // returns plain JSON. A change may pause the run until a person approves it. A call can throw
            // DeniedError, ValidationError or ToolError (each with .tool and .data); catch them to go on.
            declare class DeniedError extends Error { tool: string; data: unknown; }
            declare class ValidationError extends Error { tool: string; data: { issues: { path: string; message: string }[] }; }
            declare class ToolError extends Error { tool: string; data: unknown; }
            """;

    private Declarations() {
    }

    static String of(List<ToolDescriptor> tools) {
        return of(tools, DEFAULT_MAX_BYTES);
    }

    /**
     * @param maxBytes the most bytes (UTF-8) of the result, at least {@value #MIN_BYTES}; tools are
     *                 taken in name order while they fit
     */
    static String of(List<ToolDescriptor> tools, int maxBytes) {
        if (maxBytes < MIN_BYTES) {
            throw new IllegalArgumentException("maxBytes must be at least " + MIN_BYTES + ", got " + maxBytes);
        }
        List<ToolDescriptor> sorted = new ArrayList<>(tools);
        sorted.sort(Comparator.comparing(ToolDescriptor::name));
        TypeRenderer.Names names = new TypeRenderer.Names();
        Map<String, List<String>> plugins = new LinkedHashMap<>();
        Map<String, String> topLevel = new LinkedHashMap<>();
        List<String> omitted = new ArrayList<>();
        String text = assemble(names, plugins, topLevel, omitted);
        for (ToolDescriptor tool : sorted) {
            String name = tool.name();
            int dot = name.indexOf('.');
            String plugin = dot < 0 ? null : name.substring(0, dot);
            if (plugin == null ? plugins.containsKey(name) : topLevel.containsKey(plugin)) {
                continue; // the sandbox has one or the other under that member, as here
            }
            TypeRenderer.Names tried = names.copy();
            String member = member(tool, dot < 0 ? name : name.substring(dot + 1), tried, plugin == null ? "  " : "    ");
            Map<String, List<String>> nextPlugins = copy(plugins);
            Map<String, String> nextTop = new LinkedHashMap<>(topLevel);
            if (plugin == null) {
                nextTop.put(name, member);
            } else {
                nextPlugins.computeIfAbsent(plugin, p -> new ArrayList<>()).add(member);
            }
            String next = assemble(tried, nextPlugins, nextTop, omitted);
            // room is kept for the closing comment that names what is left out
            if (next.getBytes(StandardCharsets.UTF_8).length + OMITTED_LIST_CHARS + 200 > maxBytes) {
                omitted.add(name);
                continue;
            }
            names = tried;
            plugins = nextPlugins;
            topLevel = nextTop;
            text = next;
        }
        return omitted.isEmpty() ? text : assemble(names, plugins, topLevel, omitted);
    }

    private static String member(ToolDescriptor tool, String local, TypeRenderer.Names names, String indent) {
        StringBuilder out = new StringBuilder();
        String effect = switch (tool.effect()) {
            case READ -> "effect: read";
            case MUTATE -> "effect: mutate (a change: may pause for approval)";
            case DESTRUCTIVE -> "effect: destructive (always waits for a person's approval)";
        };
        TypeRenderer.doc(out, indent, tool.title().orElse(""), tool.description(), effect);
        String input = new TypeRenderer(tool.inputSchema(), tool.name() + "#in", names).render(tool.inputSchema(), indent);
        String output = tool.outputSchema()
                .map(schema -> new TypeRenderer(schema, tool.name() + "#out", names).render(schema, indent))
                .orElse("unknown");
        out.append(indent).append(TsText.propertyName(local)).append("(input: ").append(input).append("): ")
                .append(output).append(";\n");
        return out.toString();
    }

    private static String assemble(TypeRenderer.Names names, Map<String, List<String>> plugins, Map<String, String> topLevel,
                                   List<String> omitted) {
        StringBuilder out = new StringBuilder(HEADER);
        for (String declaration : names.declarations()) {
            out.append(declaration).append('\n');
        }
        out.append("declare const tools: {\n");
        List<String> members = new ArrayList<>(plugins.keySet());
        members.addAll(topLevel.keySet());
        members.sort(null);
        for (String member : members) {
            if (topLevel.containsKey(member)) {
                out.append(topLevel.get(member));
                continue;
            }
            out.append("  ").append(TsText.propertyName(member)).append(": {\n");
            plugins.get(member).forEach(out::append);
            out.append("  };\n");
        }
        out.append("};\n");
        if (!omitted.isEmpty()) {
            out.append("// ").append(omitted.size()).append(" more tool(s) did not fit and are not declared here: ");
            StringBuilder list = new StringBuilder();
            int shown = 0;
            for (String name : omitted) {
                String safe = safe(name);
                if (list.length() + safe.length() + 2 > OMITTED_LIST_CHARS) {
                    break;
                }
                list.append(shown++ == 0 ? "" : ", ").append(safe);
            }
            out.append(list);
            if (shown < omitted.size()) {
                out.append(" and ").append(omitted.size() - shown).append(" more");
            }
            out.append("\n// call codemode.describe with {\"plugins\": [...]} to see fewer tools at a time\n");
        }
        return out.toString();
    }

    /** A tool name inside a line comment: names are A-Za-z0-9_.- already; anything else is dropped. */
    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9_.-]", "");
    }

    private static Map<String, List<String>> copy(Map<String, List<String>> plugins) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        plugins.forEach((plugin, members) -> copy.put(plugin, new ArrayList<>(members)));
        return copy;
    }
}
