package dev.toolgate.spring.boot;

/**
 * Starts, on the test's own class loader, the JVM-wide registries that read service files when first
 * used. A test that runs a context on a {@code FilteredClassLoader} would otherwise start them with
 * classes hidden (Spring Security's thread-local accessor, say), and their failed static start would
 * break every later test in the same JVM.
 */
final class ClassesStartedFirst {

    private ClassesStartedFirst() {
    }

    static void now() {
        io.micrometer.context.ContextRegistry.getInstance();
        try {
            Class.forName("reactor.core.publisher.ContextPropagationSupport", true, ClassesStartedFirst.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
