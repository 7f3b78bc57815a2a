package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code toolgate} health indicator for Actuator: DOWN when the store cannot be read, UP with each
 * tool source's state otherwise ({@code management.health.toolgate.enabled}).
 */
@AutoConfiguration(after = ToolgateAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Toolgate.class)
public class ToolgateHealthAutoConfiguration {

    /** Health of the store and the tool sources. */
    @Bean
    @ConditionalOnMissingBean(name = "toolgateHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("toolgate") // on the method: its condition class comes with Actuator
    HealthIndicator toolgateHealthIndicator(Toolgate toolgate) {
        return new ToolgateHealth(toolgate);
    }
}
