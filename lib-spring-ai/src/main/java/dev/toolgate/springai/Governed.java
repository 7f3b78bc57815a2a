package dev.toolgate.springai;

import dev.toolgate.tool.Effect;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares how Toolgate governs a Spring AI {@code @Tool} method when its bean is registered with
 * {@link SpringAiTools.Builder#beans(Object...)}: the effect (required, never inferred) and the access
 * rules a principal needs. A {@code @Tool} method without it is refused unless the host declares it
 * by name with {@link SpringAiTools.Builder#declare}.
 *
 * <pre>{@code
 * @Tool(description = "Open an incident")
 * @Governed(effect = Effect.MUTATE, requires = "incident.write")
 * public Incident openIncident(String title) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Governed {

    /** READ, MUTATE or DESTRUCTIVE. */
    Effect effect();

    /** The access rules a principal must hold (all of them); none by default. */
    String[] requires() default {};
}
