package dev.toolgate.spring.boot;

import java.util.Objects;

/**
 * A {@code toolgate.*} property has a value the gate cannot work with. Thrown at startup, so the
 * application does not start; Spring Boot's failure report names the property, the value and what is
 * accepted.
 */
public final class InvalidToolgatePropertyException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String expected;

    /**
     * @param property the property's full name, such as {@code toolgate.budget.calls}
     * @param value    the value it has (never a secret: no Toolgate property holds one)
     * @param expected what is accepted, such as {@code "at least 1"}
     */
    public InvalidToolgatePropertyException(String property, Object value, String expected) {
        super("Invalid Toolgate configuration: " + property + " is " + quoted(value) + "; it must be " + expected);
        this.property = Objects.requireNonNull(property, "property");
        this.value = String.valueOf(value);
        this.expected = Objects.requireNonNull(expected, "expected");
    }

    /** The property's full name. */
    public String property() {
        return property;
    }

    /** The value it had, as text. */
    public String value() {
        return value;
    }

    /** What is accepted. */
    public String expected() {
        return expected;
    }

    private static String quoted(Object value) {
        return value == null ? "not set" : "'" + value + "'";
    }
}
