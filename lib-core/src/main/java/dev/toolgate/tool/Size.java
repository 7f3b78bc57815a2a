package dev.toolgate.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Length bounds for a string property ({@code minLength}/{@code maxLength}) or an array property
 * ({@code minItems}/{@code maxItems}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.RECORD_COMPONENT, ElementType.METHOD})
public @interface Size {

    /** Fewest characters or items. */
    int min() default 0;

    /** Most characters or items. */
    int max() default Integer.MAX_VALUE;
}
