package dev.toolgate.tool;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the access rules a host operation already declares, for {@link Tools#expose}. The default
 * reads {@link RequiresAccess}; a host with its own authorization annotations supplies a source that
 * reads those, so rules are never declared twice.
 */
@FunctionalInterface
public interface AccessRuleSource {

    /** The rules {@code method} requires, or empty if it declares none (it is then not exposable). */
    Optional<Set<String>> rulesOf(Method method);

    /** Reads {@link RequiresAccess} on the method, else on its declaring type. */
    static AccessRuleSource annotations() {
        return method -> {
            RequiresAccess onMethod = method.getAnnotation(RequiresAccess.class);
            RequiresAccess declared = onMethod != null ? onMethod : method.getDeclaringClass().getAnnotation(RequiresAccess.class);
            return declared == null ? Optional.empty() : Optional.of(Set.of(declared.value()));
        };
    }
}
