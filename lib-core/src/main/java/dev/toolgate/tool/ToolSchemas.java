package dev.toolgate.tool;

import com.fasterxml.classmate.ResolvedType;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import com.github.victools.jsonschema.module.jackson.JacksonSchemaModule;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import com.networknt.schema.path.PathType;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates JSON Schemas (2020-12) from Java types, compiles them for validation, and binds validated
 * JSON to typed inputs. Schemas are generated once per type and cached.
 */
final class ToolSchemas {

    private static final SchemaRegistry VALIDATORS = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder()
                    .pathType(PathType.JSON_POINTER)
                    .build()));

    private final JsonMapper mapper;
    private final SchemaGenerator generator;
    private final Map<Type, ObjectNode> cache = new ConcurrentHashMap<>();

    ToolSchemas(JsonMapper mapper) {
        this.mapper = mapper;
        SchemaGeneratorConfigBuilder config = new SchemaGeneratorConfigBuilder(
                mapper, SchemaVersion.DRAFT_2020_12, OptionPreset.PLAIN_JSON)
                .with(new JacksonSchemaModule(JacksonOption.RESPECT_JSONPROPERTY_REQUIRED,
                        JacksonOption.FLATTENED_ENUMS_FROM_JSONVALUE))
                .with(Option.FORBIDDEN_ADDITIONAL_PROPERTIES_BY_DEFAULT)
                .with(Option.MAP_VALUES_AS_ADDITIONAL_PROPERTIES)
                .with(Option.FLATTENED_OPTIONALS);
        config.forFields()
                .withRequiredCheck(field -> !isOptional(field))
                .withNullableCheck(ToolSchemas::isOptional)
                .withNumberInclusiveMinimumResolver(field -> range(field, true))
                .withNumberInclusiveMaximumResolver(field -> range(field, false))
                .withStringMinLengthResolver(field -> length(field, true))
                .withStringMaxLengthResolver(field -> length(field, false))
                .withArrayMinItemsResolver(field -> items(field, true))
                .withArrayMaxItemsResolver(field -> items(field, false));
        this.generator = new SchemaGenerator(config.build());
    }

    /** The schema of a type, generated once. The returned node is shared: callers must not mutate it. */
    ObjectNode schemaOf(Type type) {
        return cache.computeIfAbsent(type, t -> (ObjectNode) generator.generateSchema(t));
    }

    /** Compiles a schema for validation. */
    static Schema compile(JsonNode schema) {
        Schema compiled = VALIDATORS.getSchema(schema);
        compiled.initializeValidators();
        return compiled;
    }

    /**
     * What is wrong with a schema a tool was given (rather than generated), checked against the
     * meta-schema of its {@code $schema} dialect (2020-12 when it names none); empty if it is a valid
     * schema.
     */
    static List<ValidationIssue> checkGivenSchema(JsonNode schema) {
        String dialect = schema.path("$schema").asString("https://json-schema.org/draft/2020-12/schema");
        Schema meta;
        try {
            meta = VALIDATORS.getSchema(com.networknt.schema.SchemaLocation.of(dialect.replace("#", "")));
        } catch (RuntimeException e) {
            return List.of(ValidationIssue.at("/$schema", "unknown dialect " + dialect));
        }
        Set<ValidationIssue> issues = new LinkedHashSet<>();
        for (Error error : meta.validate(schema)) {
            issues.add(ValidationIssue.at(pointer(error.getInstanceLocation()), error.getMessage()));
        }
        return List.copyOf(issues);
    }

    /** Every issue with {@code arguments} against {@code schema}; empty if valid. */
    static List<ValidationIssue> validate(Schema schema, JsonNode arguments) {
        if (arguments == null || !arguments.isObject()) {
            String got = arguments == null || arguments.isMissingNode() ? "nothing" : arguments.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
            return List.of(ValidationIssue.at("", "expected a JSON object of arguments, got " + got));
        }
        Set<ValidationIssue> issues = new LinkedHashSet<>();
        for (Error error : schema.validate(arguments)) {
            String path = pointer(error.getInstanceLocation());
            String keyword = error.getKeyword();
            if (("required".equals(keyword) || "additionalProperties".equals(keyword)) && error.getProperty() != null) {
                path = path + "/" + escape(error.getProperty());
            }
            issues.add(ValidationIssue.at(path, error.getMessage()));
        }
        return List.copyOf(issues);
    }

    /** Binds validated arguments to the input type, reporting binding problems as issues. */
    <I> I bind(JsonNode arguments, Class<I> type) {
        if (type == NoInput.class && arguments != null && arguments.isObject() && arguments.isEmpty()) {
            return type.cast(NO_INPUT); // what binding {} makes, without a deserializer's walk
        }
        try {
            return mapper.treeToValue(arguments, type);
        } catch (JacksonException e) {
            StringBuilder path = new StringBuilder();
            for (JacksonException.Reference ref : e.getPath()) {
                path.append('/').append(ref.getPropertyName() != null ? escape(ref.getPropertyName()) : ref.getIndex());
            }
            throw new ToolValidationException(List.of(ValidationIssue.at(path.toString(), e.getOriginalMessage())));
        }
    }

    private static final NoInput NO_INPUT = new NoInput();

    JsonMapper mapper() {
        return mapper;
    }

    static String pointer(NodePath path) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < path.getNameCount(); i++) {
            Object element = path.getElement(i);
            out.append('/').append(element instanceof Integer ? element.toString() : escape(String.valueOf(element)));
        }
        return out.toString();
    }

    static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    private static boolean isOptional(FieldScope field) {
        if (field.getType() == null) {
            return false;
        }
        Class<?> raw = field.getType().getErasedType();
        if (raw == Optional.class || raw == OptionalInt.class || raw == OptionalLong.class || raw == OptionalDouble.class) {
            return true;
        }
        List<Annotation> annotations = new ArrayList<>(field.getRawMember().getDeclaredAnnotations().length);
        annotations.addAll(List.of(field.getRawMember().getDeclaredAnnotations()));
        if (field.findGetter() != null) {
            annotations.addAll(List.of(field.findGetter().getRawMember().getDeclaredAnnotations()));
        }
        return annotations.stream().anyMatch(a -> a.annotationType().getSimpleName().equals("Nullable"));
    }

    private static BigDecimal range(FieldScope field, boolean min) {
        Range range = field.isFakeContainerItemScope() ? null : field.getAnnotationConsideringFieldAndGetter(Range.class);
        if (range == null || !isA(valueType(field), Number.class)) {
            return null;
        }
        long bound = min ? range.min() : range.max();
        return bound == (min ? Long.MIN_VALUE : Long.MAX_VALUE) ? null : BigDecimal.valueOf(bound);
    }

    /** {@link Size} as string length: only on strings (also inside an Optional), never on list items. */
    private static Integer length(FieldScope field, boolean min) {
        return isA(valueType(field), CharSequence.class) ? size(field, min) : null;
    }

    /** {@link Size} as item count: only on the container itself. */
    private static Integer items(FieldScope field, boolean min) {
        return field.isContainerType() ? size(field, min) : null;
    }

    private static Integer size(FieldScope field, boolean min) {
        Size size = field.isFakeContainerItemScope() ? null : field.getAnnotationConsideringFieldAndGetter(Size.class);
        if (size == null) {
            return null;
        }
        int bound = min ? size.min() : size.max();
        return bound == (min ? 0 : Integer.MAX_VALUE) ? null : bound;
    }

    /** The property's value type, looking through {@link Optional}. */
    private static ResolvedType valueType(FieldScope field) {
        ResolvedType type = field.getType();
        if (type != null && type.getErasedType() == Optional.class && !type.getTypeParameters().isEmpty()) {
            return type.getTypeParameters().get(0);
        }
        return type;
    }

    private static boolean isA(ResolvedType type, Class<?> kind) {
        if (type == null) {
            return false;
        }
        Class<?> raw = type.getErasedType();
        return kind.isAssignableFrom(raw) || (kind == Number.class && raw.isPrimitive() && raw != boolean.class && raw != char.class);
    }
}
