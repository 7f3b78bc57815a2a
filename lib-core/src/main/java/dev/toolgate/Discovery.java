package dev.toolgate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** {@link ServiceLoader} lookups with clear errors: a broken or ambiguous classpath fails the build. */
final class Discovery {

    private final ClassLoader classLoader;

    Discovery(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    /** Every implementation of {@code type} listed on the classpath. */
    <T> List<T> all(Class<T> type) {
        List<T> found = new ArrayList<>();
        try {
            for (T service : ServiceLoader.load(type, classLoader)) {
                found.add(service);
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("Cannot load " + type.getName() + " implementations listed in META-INF/services: "
                    + e.getMessage(), e);
        }
        return found;
    }

    /**
     * The single implementation of {@code type} on the classpath, if any.
     *
     * @throws IllegalStateException if there are several: the host must choose one explicitly
     */
    <T> Optional<T> single(Class<T> type) {
        List<T> found = all(type);
        if (found.size() > 1) {
            throw new IllegalStateException("Several " + type.getName() + " implementations are on the classpath ("
                    + found.stream().map(s -> s.getClass().getName()).collect(Collectors.joining(", "))
                    + "); pass the one to use to Toolgate.builder() explicitly");
        }
        return found.stream().findFirst();
    }
}
