package dev.toolgate.langchain4j;

import dev.toolgate.tool.Effect;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares, beside LangChain4j's {@code @Tool}, what a tool method does and who may call it, so
 * {@link LangChain4jTools} can register it as a governed tool. A name map on the builder takes
 * precedence over this annotation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Governed {

    /** What calling the tool does: READ runs directly; MUTATE and DESTRUCTIVE go through propose/apply. */
    Effect effect();

    /** The access rules a caller must all hold; none means every principal may see it. */
    String[] requires() default {};
}
