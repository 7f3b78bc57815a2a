package dev.toolgate.tool;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Tools made from existing methods, so hosts do not re-declare schemas or rules.
 *
 * <ul>
 *   <li>{@link #fromAnnotated(Object)}: every {@link ToolMethod} on an object.</li>
 *   <li>{@link #expose(Object, String)}: an existing service operation verbatim. Its input schema
 *       comes from the parameter type and its access rules from where the operation declares them
 *       ({@link RequiresAccess} or a host {@link AccessRuleSource}); the host adds only what the
 *       model needs, a description and the effect.</li>
 * </ul>
 */
public final class Tools {

    private Tools() {
    }

    /**
     * Every public method of {@code target} (including inherited and interface methods) annotated
     * with {@link ToolMethod}, as tools, sorted by name.
     *
     * @throws ToolDefinitionException if a method's signature cannot be a tool
     */
    public static List<Tool<?, ?>> fromAnnotated(Object target) {
        Objects.requireNonNull(target, "target");
        List<Tool<?, ?>> tools = new ArrayList<>();
        Method[] methods = target.getClass().getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            ToolMethod spec = method.getAnnotation(ToolMethod.class);
            if (spec == null) {
                continue;
            }
            Invoker invoker = Invoker.of(target, method);
            Set<String> rules = new LinkedHashSet<>(List.of(spec.requires()));
            AccessRuleSource.annotations().rulesOf(method).ifPresent(rules::addAll);
            Tool.Builder<Object, Object> builder = builderFor(spec.name(), invoker)
                    .description(spec.description())
                    .effect(spec.effect())
                    .requires(rules)
                    .openWorld(spec.openWorld())
                    .onCallerThread(spec.onCallerThread());
            if (!spec.title().isEmpty()) {
                builder.title(spec.title());
            }
            if (spec.timeoutMillis() > 0) {
                builder.timeout(Duration.ofMillis(spec.timeoutMillis()));
            }
            if (!spec.dryRun().isEmpty()) {
                builder.dryRun(dryRunFor(target, spec, invoker));
            }
            tools.add(builder.build());
        }
        return List.copyOf(tools);
    }

    /**
     * Starts a tool from the public method {@code methodName} of {@code target}'s class, reading its
     * rules from {@link RequiresAccess}. Finish it with a description and an effect.
     *
     * @throws ToolDefinitionException if there is no such single method, its signature cannot be a
     *                                 tool, or it declares no access rules
     */
    public static Tool.Builder<Object, Object> expose(Object target, String methodName) {
        @SuppressWarnings("unchecked")
        Class<Object> type = (Class<Object>) target.getClass();
        return expose(type, target, methodName, AccessRuleSource.annotations());
    }

    /**
     * Starts a tool from method {@code methodName} declared by {@code type} (for example a functional
     * or service interface carrying the rules) and invoked on {@code target}.
     */
    public static <T> Tool.Builder<Object, Object> expose(Class<T> type, T target, String methodName) {
        return expose(type, target, methodName, AccessRuleSource.annotations());
    }

    /** As {@link #expose(Class, Object, String)}, reading rules with a host's own {@code rules} source. */
    public static <T> Tool.Builder<Object, Object> expose(Class<? super T> type, T target, String methodName,
                                                          AccessRuleSource rules) {
        Objects.requireNonNull(target, "target");
        List<Method> candidates = Arrays.stream(type.getMethods())
                .filter(m -> m.getName().equals(methodName) && !Modifier.isStatic(m.getModifiers()))
                .toList();
        if (candidates.size() != 1) {
            throw new ToolDefinitionException("Cannot expose " + type.getName() + "." + methodName + ": found "
                    + candidates.size() + " public methods with that name, need exactly one");
        }
        Method method = candidates.get(0);
        Set<String> declared = rules.rulesOf(method).orElseThrow(() -> new ToolDefinitionException(
                "Cannot expose " + type.getName() + "." + methodName + ": it declares no access rules "
                        + "(annotate it with @RequiresAccess, or @RequiresAccess({}) if it is open to every user)"));
        return builderFor(methodName, Invoker.of(target, method)).requires(declared);
    }

    private static Tool.Builder<Object, Object> builderFor(String name, Invoker invoker) {
        @SuppressWarnings("unchecked")
        Class<Object> inputType = (Class<Object>) invoker.inputType();
        Tool.Builder<Object, Object> builder = Tool.builder(name, inputType).execute(invoker::invoke);
        Type output = invoker.method().getGenericReturnType();
        if (output != void.class && output != Void.class && output != Object.class) {
            builder.output(output);
        }
        return builder;
    }

    private static DryRun<Object> dryRunFor(Object target, ToolMethod spec, Invoker tool) {
        List<Method> candidates = Arrays.stream(target.getClass().getMethods())
                .filter(m -> m.getName().equals(spec.dryRun()))
                .toList();
        String label = "Tool '" + spec.name() + "': dry-run method '" + spec.dryRun() + "'";
        if (candidates.size() != 1) {
            throw new ToolDefinitionException(label + " must be exactly one public method, found " + candidates.size());
        }
        Invoker dryRun = Invoker.of(target, candidates.get(0));
        if (dryRun.inputType() != tool.inputType()) {
            throw new ToolDefinitionException(label + " must take " + tool.inputType().getSimpleName()
                    + ", not " + dryRun.inputType().getSimpleName());
        }
        if (!Preview.class.isAssignableFrom(candidates.get(0).getReturnType())) {
            throw new ToolDefinitionException(label + " must return a Preview");
        }
        return (input, context) -> {
            @SuppressWarnings("unchecked")
            Preview<Object> preview = (Preview<Object>) dryRun.invoke(input, context);
            return preview;
        };
    }

    /** Calls a method with (input), (input, context), (context) or (). */
    private record Invoker(Object target, Method method, Class<?> inputType, boolean takesInput, boolean takesContext) {

        static Invoker of(Object target, Method method) {
            Class<?>[] params = method.getParameterTypes();
            String label = method.getDeclaringClass().getSimpleName() + "." + method.getName();
            boolean takesContext = params.length > 0 && params[params.length - 1] == ToolContext.class;
            int inputs = params.length - (takesContext ? 1 : 0);
            if (inputs > 1) {
                throw new ToolDefinitionException("Method " + label + " takes " + inputs
                        + " inputs; a tool method takes one input record (and optionally a ToolContext)");
            }
            Class<?> inputType = inputs == 1 ? params[0] : NoInput.class;
            if (inputs == 1 && method.getGenericParameterTypes()[0] != inputType) {
                throw new ToolDefinitionException("Method " + label + " takes a generic input "
                        + method.getGenericParameterTypes()[0] + "; use a record");
            }
            if (!Modifier.isPublic(method.getDeclaringClass().getModifiers()) || !Modifier.isPublic(method.getModifiers())) {
                method.trySetAccessible();
            }
            return new Invoker(target, method, inputType, inputs == 1, takesContext);
        }

        Object invoke(Object input, ToolContext context) throws Exception {
            Object[] args = new Object[(takesInput ? 1 : 0) + (takesContext ? 1 : 0)];
            int i = 0;
            if (takesInput) {
                args[i++] = input;
            }
            if (takesContext) {
                args[i] = context;
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception exception) {
                    throw exception;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw e;
            }
        }
    }
}
