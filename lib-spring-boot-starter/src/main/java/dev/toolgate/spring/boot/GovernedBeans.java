package dev.toolgate.spring.boot;

import dev.toolgate.springai.Governed;
import dev.toolgate.springai.SpringAiTools;
import dev.toolgate.tool.ToolProvider;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the application's beans with {@code @Tool} methods annotated {@link Governed} and registers
 * them as governed tools ({@link SpringAiTools}), named {@code <toolgate.spring-ai.plugin-id>.<tool>}.
 * Only beans that have such a method are created early; a {@code @Tool} method of such a bean without
 * {@code @Governed} stops the start (its effect is never guessed).
 */
final class GovernedBeans {

    private GovernedBeans() {
    }

    static Optional<ToolProvider> find(ConfigurableListableBeanFactory beans, String pluginId) {
        List<Object> governed = new ArrayList<>();
        for (String name : beans.getBeanNamesForType(Object.class, false, false)) {
            Class<?> type = beans.getType(name, false);
            if (type == null || type.getName().startsWith("org.springframework.") || !hasGoverned(ClassUtils.getUserClass(type))) {
                continue;
            }
            governed.add(beans.getBean(name));
        }
        if (governed.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(SpringAiTools.builder(pluginId).beans(governed.toArray()).build());
    }

    private static boolean hasGoverned(Class<?> type) {
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
            if (method.isAnnotationPresent(Governed.class)) {
                return true;
            }
        }
        return false;
    }
}
