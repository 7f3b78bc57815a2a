package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code toolgate} entry of Actuator's info endpoint: version, tools, sources, approver rule,
 * consent and what is mounted ({@code management.info.toolgate.enabled}).
 */
@AutoConfiguration(after = ToolgateAutoConfiguration.class)
@ConditionalOnClass(InfoContributor.class)
@ConditionalOnBean(Toolgate.class)
@ConditionalOnBooleanProperty(name = "management.info.toolgate.enabled", matchIfMissing = true)
public class ToolgateInfoAutoConfiguration {

    /** The gate's entry in {@code /actuator/info}. */
    @Bean
    @ConditionalOnMissingBean(name = "toolgateInfoContributor")
    InfoContributor toolgateInfoContributor(Toolgate toolgate, ToolgateProperties properties) {
        return new ToolgateInfo(toolgate, properties);
    }
}
