package dev.toolgate.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.annotation.JsonAppend;
import tools.jackson.databind.cfg.ContextAttributes;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.AnnotatedClass;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.ser.VirtualBeanPropertyWriter;
import tools.jackson.databind.util.Annotations;

/**
 * What the MCP Java SDK (2.x) cannot say about tasks, written into its JSON: the server's
 * {@code capabilities.tasks} in {@code initialize}, and each tool's {@code execution.taskSupport} in
 * {@code tools/list}. The SDK's records have no such fields, so the server's own JSON mapper appends
 * them (Jackson mix-ins with virtual properties), on every transport alike, because every transport
 * writes the SDK's messages with this mapper. Which tools may run as tasks is asked of the bridge by
 * name ({@link TaskTargets#mayWait}), so tools registered later are described correctly too.
 */
final class TaskJson {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    /** Where the mapper keeps the predicate "this tool may run as a task", by MCP tool name. */
    private static final String MAY_WAIT = "dev.toolgate.mcp.mayWait";

    private TaskJson() {
    }

    /**
     * A mapper that writes the tasks capability and the tools' task support, or the SDK's default
     * mapper unchanged (with a warning) when the default is not Jackson 3's.
     */
    static McpJsonMapper mapper(Predicate<String> mayWait) {
        McpJsonMapper defaults = McpJsonDefaults.getMapper();
        if (!(defaults instanceof JacksonMcpJsonMapper jackson)) {
            LOG.warn("MCP tasks are not advertised: the SDK's JSON mapper is {}, not Jackson 3's", defaults.getClass().getName());
            return defaults;
        }
        return new JacksonMcpJsonMapper(jackson.getJsonMapper().rebuild()
                .addMixIn(McpSchema.ServerCapabilities.class, CapabilitiesMixIn.class)
                .addMixIn(McpSchema.Tool.class, ToolMixIn.class)
                .defaultAttributes(ContextAttributes.getEmpty().withSharedAttribute(MAY_WAIT, mayWait))
                .build());
    }

    /** True if {@code mapper} was made by {@link #mapper} (tasks advertised). */
    static boolean advertises(McpJsonMapper mapper) {
        return mapper instanceof JacksonMcpJsonMapper jackson
                && jackson.getJsonMapper().serializationConfig().getAttributes().getAttribute(MAY_WAIT) != null;
    }

    /** {@code capabilities.tasks}: list, cancel and task-augmented {@code tools/call}. */
    static Map<String, Object> capability() {
        Map<String, Object> tasks = new LinkedHashMap<>();
        tasks.put("list", Map.of());
        tasks.put("cancel", Map.of());
        tasks.put("requests", Map.of("tools", Map.of("call", Map.of())));
        return tasks;
    }

    @JsonAppend(props = @JsonAppend.Prop(value = TasksCapability.class, name = "tasks"))
    abstract static class CapabilitiesMixIn {
    }

    @JsonAppend(props = @JsonAppend.Prop(value = TaskSupport.class, name = "execution"))
    abstract static class ToolMixIn {
    }

    /** Writes {@code "tasks": {...}} into the server's capabilities. */
    static final class TasksCapability extends VirtualBeanPropertyWriter {

        TasksCapability() {
        }

        TasksCapability(BeanPropertyDefinition property, Annotations annotations, JavaType type) {
            super(property, annotations, type);
        }

        @Override
        protected Object value(Object bean, JsonGenerator generator, SerializationContext context) {
            return capability();
        }

        @Override
        public VirtualBeanPropertyWriter withConfig(MapperConfig<?> config, AnnotatedClass declaringClass,
                                                    BeanPropertyDefinition property, JavaType type) {
            return new TasksCapability(property, declaringClass.getAnnotations(), type);
        }
    }

    /** Writes {@code "execution": {"taskSupport": "optional"}} into a tool that may wait; nothing into others. */
    static final class TaskSupport extends VirtualBeanPropertyWriter {

        private static final Map<String, Object> OPTIONAL = Map.of("taskSupport", "optional");

        TaskSupport() {
        }

        TaskSupport(BeanPropertyDefinition property, Annotations annotations, JavaType type) {
            super(property, annotations, type);
        }

        @Override
        @SuppressWarnings("unchecked")
        protected Object value(Object bean, JsonGenerator generator, SerializationContext context) {
            Object predicate = context.getAttribute(MAY_WAIT);
            return bean instanceof McpSchema.Tool tool && predicate instanceof Predicate<?> mayWait
                    && ((Predicate<String>) mayWait).test(tool.name()) ? OPTIONAL : null;
        }

        @Override
        public VirtualBeanPropertyWriter withConfig(MapperConfig<?> config, AnnotatedClass declaringClass,
                                                    BeanPropertyDefinition property, JavaType type) {
            return new TaskSupport(property, declaringClass.getAnnotations(), type);
        }
    }
}
