package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import java.util.function.UnaryOperator;
import dev.toolgate.ToolgateBuilder;
import tools.jackson.databind.JsonNode;

/** A gate with the docs tools over one index, called as a model calls them. */
final class DocsGate implements AutoCloseable {

    static final String RULE = "docs.read";

    final InMemoryStore store = new InMemoryStore();
    final Toolgate gate;
    final CallContext reader = CallContext.of(Principal.user("u", RULE));

    DocsGate(DocsIndex index) {
        this(index, b -> b.resultLimitBytes(Math.max(10 * 1024, DocsTools.resultLimitBytes(index))));
    }

    DocsGate(DocsIndex index, UnaryOperator<ToolgateBuilder> customize) {
        gate = customize.apply(Toolgate.builder()
                        .discoverTools(false)
                        .discoverComponents(false)
                        .store(store)
                        .budget(ToolBudget.unlimited()))
                .build();
        gate.registry().register(DocsTools.tools(index, RULE));
    }

    /** Calls a docs tool and expects it to have run. */
    Executed call(String tool, String argumentsJson) {
        CallResult result = gate.call(reader, tool, argumentsJson);
        assertThat(result).as("%s %s", tool, argumentsJson).isInstanceOf(Executed.class);
        return (Executed) result;
    }

    JsonNode result(String tool, String argumentsJson) {
        Executed executed = call(tool, argumentsJson);
        assertThat(executed.truncated()).as("the gate pruned the result of %s", tool).isFalse();
        return executed.result();
    }

    String json(String tool, String argumentsJson) {
        return Json.write(result(tool, argumentsJson));
    }

    int records() {
        return store.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT)).size();
    }

    static String args(Object... keyValues) {
        var node = Json.object();
        for (int i = 0; i < keyValues.length; i += 2) {
            node.set((String) keyValues[i], Json.toTree(keyValues[i + 1]));
        }
        return Json.write(node);
    }

    @Override
    public void close() {
        gate.close();
    }
}
