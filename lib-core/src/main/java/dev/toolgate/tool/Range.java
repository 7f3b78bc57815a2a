package dev.toolgate.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Inclusive numeric bounds for an input property; becomes {@code minimum}/{@code maximum} in the
 * JSON Schema, so out-of-range values are rejected before the tool runs.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.RECORD_COMPONENT, ElementType.METHOD})
public @interface Range {

    /** Smallest allowed value. */
    long min() default Long.MIN_VALUE;

    /** Largest allowed value. */
    long max() default Long.MAX_VALUE;
}
