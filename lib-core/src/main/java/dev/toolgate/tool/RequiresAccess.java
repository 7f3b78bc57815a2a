package dev.toolgate.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The access rules a host operation requires, declared where the operation is defined (on a service
 * method, an interface method, or the type). {@link Tools#expose} reads them verbatim so a tool built
 * from the operation carries exactly the rules the operation enforces; {@code @RequiresAccess({})}
 * declares an operation open to every user and application.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RequiresAccess {

    /** Fully qualified rule ids; a caller must hold all of them. */
    String[] value();
}
