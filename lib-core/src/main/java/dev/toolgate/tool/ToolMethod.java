package dev.toolgate.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a public method as a tool; collect them with {@link Tools#fromAnnotated(Object)}.
 *
 * <p>The method takes its input (a record or class, or nothing) and optionally a
 * {@link ToolContext} as its last parameter; its return value is the result.
 *
 * <pre>{@code
 * @ToolMethod(name = "get", effect = Effect.READ, requires = "incident.incident.read",
 *         description = "Get one incident by id.")
 * public Incident get(IncidentId id) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ToolMethod {

    /** The name within the plugin. */
    String name();

    /** The description the model reads. */
    String description();

    /** The effect; required, never inferred. */
    Effect effect();

    /** Required access rules, in addition to any {@link RequiresAccess} on the method or its class. */
    String[] requires() default {};

    /**
     * The name of a public method on the same object that dry-runs this tool: same input parameter
     * (and optionally a {@link ToolContext}), returning a {@link Preview}.
     */
    String dryRun() default "";

    /** A title for people. */
    String title() default "";

    /** An execution timeout in milliseconds overriding the gate's default; 0 keeps the default. */
    long timeoutMillis() default 0;

    /** True if the tool reaches outside the host. */
    boolean openWorld() default false;

    /**
     * True (the default) if the gate runs the method on the calling thread, with its timeout enforced
     * by interruption; false hands it to one of the gate's tool threads, so the caller is answered at
     * the timeout even if the method ignores interruption. See {@link Tool.Builder#onCallerThread(boolean)}.
     */
    boolean onCallerThread() default true;
}
