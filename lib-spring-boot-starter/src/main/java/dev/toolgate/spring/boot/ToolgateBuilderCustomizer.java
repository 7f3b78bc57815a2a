package dev.toolgate.spring.boot;

import dev.toolgate.ToolgateBuilder;

/**
 * Changes the {@link ToolgateBuilder} before the starter builds the {@code Toolgate} bean, after it
 * applied the {@code toolgate.*} properties and the application's beans: a redactor, a resolver, an
 * engine, a source's timings. Beans of this type are applied in their {@code @Order}.
 */
@FunctionalInterface
public interface ToolgateBuilderCustomizer {

    /** Customizes the builder; must not call {@code build()}. */
    void customize(ToolgateBuilder builder);
}
