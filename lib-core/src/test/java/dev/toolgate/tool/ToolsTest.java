package dev.toolgate.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.Principal;
import dev.toolgate.json.Json;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolsTest {

    public record IncidentId(String id) {
    }

    public record Incident(String id, String title) {
    }

    /** A host object with annotated tool methods. */
    public static class IncidentTools {
        @ToolMethod(name = "get", effect = Effect.READ, requires = "incident.incident.read",
                description = "Get one incident by id.")
        public Incident get(IncidentId id) {
            return new Incident(id.id(), "DB down");
        }

        @ToolMethod(name = "close", effect = Effect.MUTATE, requires = "incident.incident.manage",
                description = "Close an incident.", dryRun = "previewClose", timeoutMillis = 1500)
        public String close(IncidentId id, ToolContext context) {
            return "closed " + id.id() + " by " + context.principal().id();
        }

        public Preview<IncidentId> previewClose(IncidentId id) {
            return Preview.of("Close " + id.id());
        }

        @ToolMethod(name = "ping", effect = Effect.READ, description = "Ping.", onCallerThread = false)
        public String ping() {
            return "pong";
        }
    }

    /** An existing service of a host, with its own authorization declaration. */
    public static class IncidentService {
        @RequiresAccess({"incident.incident.read"})
        public List<Incident> listIncidents(IncidentId filter) {
            return List.of(new Incident(filter.id(), "x"));
        }

        public List<Incident> undeclared(IncidentId filter) {
            return List.of();
        }

        public void overloaded(IncidentId a) {
        }

        public void overloaded(Incident b) {
        }
    }

    /** A host's functional interface, which carries the rules. */
    @FunctionalInterface
    public interface IncidentLookup {
        @RequiresAccess("incident.incident.read")
        Incident lookup(IncidentId id);
    }

    /** A host's own authorization annotation. */
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    public @interface HostPermission {
        String value();
    }

    public static class HostService {
        @HostPermission("incident.incident.read")
        public Incident find(IncidentId id) {
            return new Incident(id.id(), "y");
        }
    }

    private static ToolContext ctx() {
        return new ToolContext("call-1", Principal.user("carol"), null, null, null, "java", ToolContext.Phase.EXECUTE);
    }

    @Test
    void annotatedMethodsBecomeToolsWithTheirSchemasRulesAndDryRuns() throws Exception {
        List<Tool<?, ?>> tools = Tools.fromAnnotated(new IncidentTools());
        assertThat(tools).extracting(Tool::name).containsExactly("close", "get", "ping");

        ToolRegistry registry = ToolRegistry.create();
        registry.register(ToolProvider.of("incident", tools.toArray(Tool[]::new)));
        RegisteredTool close = registry.find("incident.close").orElseThrow();
        assertThat(close.effect()).isEqualTo(Effect.MUTATE);
        assertThat(close.requiredAccessRules()).containsExactly("incident.incident.manage");
        assertThat(close.timeout()).contains(java.time.Duration.ofMillis(1500));
        assertThat(close.onCallerThread()).isTrue();
        assertThat(registry.find("incident.ping").orElseThrow().onCallerThread()).isFalse();
        assertThat(close.dryRun(Json.parse("{\"id\":\"INC-1\"}"), ctx()).summary()).isEqualTo("Close INC-1");
        assertThat(close.execute(Json.parse("{\"id\":\"INC-1\"}"), ctx()).asString()).isEqualTo("closed INC-1 by carol");
        assertThat(registry.find("incident.ping").orElseThrow().descriptor().inputSchema().get("properties").size()).isZero();
        assertThat(registry.find("incident.get").orElseThrow().descriptor().outputSchema()).isPresent();
    }

    @Test
    void anExistingMethodIsExposedVerbatimWithItsOwnRulesAndSchema() throws Exception {
        Tool<Object, Object> tool = Tools.expose(new IncidentService(), "listIncidents")
                .description("List incidents").effect(Effect.READ).build();
        assertThat(tool.name()).isEqualTo("listIncidents");
        assertThat(tool.requiredAccessRules()).containsExactly("incident.incident.read");
        RegisteredTool registered = ToolRegistry.create().register("incident", tool);
        assertThat(registered.descriptor().inputSchema().get("required").get(0).asString()).isEqualTo("id");
        assertThat(registered.execute(Json.parse("{\"id\":\"INC-7\"}"), ctx()).get(0).get("id").asString()).isEqualTo("INC-7");
    }

    @Test
    void aFunctionalInterfaceCarriesItsRulesForALambda() throws Exception {
        IncidentLookup lookup = id -> new Incident(id.id(), "from lambda");
        Tool<Object, Object> tool = Tools.expose(IncidentLookup.class, lookup, "lookup")
                .description("Look up").effect(Effect.READ).build();
        assertThat(tool.requiredAccessRules()).containsExactly("incident.incident.read");
        assertThat(ToolRegistry.create().register("incident", tool).execute(Json.parse("{\"id\":\"A\"}"), ctx())
                .get("title").asString()).isEqualTo("from lambda");
    }

    @Test
    void aHostCanReadRulesFromItsOwnAnnotations() {
        AccessRuleSource hostRules = (Method m) -> Optional.ofNullable(m.getAnnotation(HostPermission.class))
                .map(p -> Set.of(p.value()));
        Tool<Object, Object> tool = Tools.expose(HostService.class, new HostService(), "find", hostRules)
                .description("Find").effect(Effect.READ).build();
        assertThat(tool.requiredAccessRules()).containsExactly("incident.incident.read");
    }

    @Test
    void exposingRequiresDeclaredRulesAnEffectAndAnUnambiguousMethod() {
        assertThatThrownBy(() -> Tools.expose(new IncidentService(), "undeclared"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("declares no access rules");
        assertThatThrownBy(() -> Tools.expose(new IncidentService(), "listIncidents").description("d").build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("declares no effect");
        assertThatThrownBy(() -> Tools.expose(new IncidentService(), "overloaded"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("found 2");
        assertThatThrownBy(() -> Tools.expose(new IncidentService(), "missing"))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("found 0");
    }
}
