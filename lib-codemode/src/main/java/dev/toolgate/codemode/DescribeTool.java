package dev.toolgate.codemode;

import dev.toolgate.Toolgate;
import dev.toolgate.policy.Mode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** {@value Codemode#DESCRIBE}: the declarations of exactly the tools the caller may use now. */
final class DescribeTool {

    /** The tool's result. */
    record Declared(String typescript, List<String> tools) {
    }

    private DescribeTool() {
    }

    static Tool<Codemode.Describe, Declared> build(Toolgate gate, String[] rules) {
        return Tool.builder("describe", Codemode.Describe.class)
                .title("Declarations of the tools for codemode")
                .description("TypeScript declarations of the tools your code can call with codemode.test and codemode.run, "
                        + "as tools.<plugin>.<name>(input): each call is synchronous and returns plain JSON. Pass plugins to "
                        + "narrow the list. Read these before writing code; call only what they declare.")
                .effect(Effect.READ)
                .requires(rules)
                .output(Declared.class)
                .execute((in, ctx) -> describe(gate, Contexts.of(ctx), in))
                .build();
    }

    private static Declared describe(Toolgate gate, dev.toolgate.call.CallContext context, Codemode.Describe in) {
        Set<String> wanted = in.plugins().map(TreeSet::new).orElse(null);
        List<ToolDescriptor> tools = new ArrayList<>();
        Set<String> plugins = new TreeSet<>();
        for (Toolgate.CatalogEntry entry : gate.catalog(context)) {
            String name = entry.descriptor().name();
            if (name.startsWith(Codemode.PLUGIN + ".") || entry.mode().mode() == Mode.DENY) {
                continue;
            }
            String plugin = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
            plugins.add(plugin);
            if (wanted == null || wanted.contains(plugin)) {
                tools.add(entry.descriptor());
            }
        }
        if (wanted != null) {
            List<ValidationIssue> issues = new ArrayList<>();
            List<String> asked = in.plugins().orElseThrow();
            for (int i = 0; i < asked.size(); i++) {
                if (!plugins.contains(asked.get(i))) {
                    issues.add(ValidationIssue.at("/plugins/" + i, "no plugin '" + asked.get(i) + "' among yours: "
                            + (plugins.isEmpty() ? "you have none" : String.join(", ", plugins))));
                }
            }
            if (!issues.isEmpty()) {
                throw new ToolValidationException(issues);
            }
        }
        return new Declared(Declarations.of(tools), tools.stream().map(ToolDescriptor::name).toList());
    }
}
