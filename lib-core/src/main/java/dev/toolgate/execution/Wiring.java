package dev.toolgate.execution;

import dev.toolgate.access.PrincipalDirectory;
import dev.toolgate.access.Resolver;
import dev.toolgate.call.GateSettings;
import dev.toolgate.gate.ProposeApplyEngine;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.ExecutionStore;
import dev.toolgate.tool.ToolRegistry;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** What the execution runtime is built from. */
record Wiring(ProposeApplyEngine engine, CallStore calls, ExecutionStore runs, ToolRegistry registry, Resolver resolver,
              GateSettings settings, JsonMapper mapper, Map<String, Program> programs, PrincipalDirectory directory) {
}
