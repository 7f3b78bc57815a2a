package dev.toolgate.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an {@link InvalidToolgatePropertyException} into Spring Boot's "APPLICATION FAILED TO START" report. */
final class ToolgateFailureAnalyzer extends AbstractFailureAnalyzer<InvalidToolgatePropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidToolgatePropertyException cause) {
        return new FailureAnalysis(
                "Toolgate cannot start: " + cause.property() + " is " + cause.value() + ".",
                "Set " + cause.property() + " to " + cause.expected()
                        + ". The toolgate.* properties are listed in the starter's README.",
                cause);
    }
}
