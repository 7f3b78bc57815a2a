package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.micrometer.ToolgateObservability;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Toolgate's observations, meters and gauges ({@code toolgate-micrometer}) through the application's
 * {@link ObservationRegistry} and {@link MeterRegistry}, when both the module and Micrometer are on the
 * classpath and the application has an observation registry (Spring Boot's Actuator gives one).
 * {@code toolgate.metrics.enabled=false} turns it off.
 */
@AutoConfiguration(beforeName = "dev.toolgate.spring.boot.ToolgateAutoConfiguration", afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({ToolgateObservability.class, ObservationRegistry.class, MeterRegistry.class})
@ConditionalOnBooleanProperty(name = "toolgate.metrics.enabled", matchIfMissing = true)
@ConditionalOnBean(ObservationRegistry.class)
public class ToolgateMetricsAutoConfiguration {

    /** Installs the observation on the gate's builder, then registers the gauges once the gate exists. */
    @Bean
    Observability toolgateObservability(ObservationRegistry observations, ObjectProvider<MeterRegistry> meters,
                                        ObjectProvider<Toolgate> toolgate) {
        return new Observability(observations, meters.getIfUnique(), toolgate);
    }

    /** The customizer and the binding of the gauges, in one. */
    static final class Observability implements ToolgateBuilderCustomizer, SmartInitializingSingleton {

        private final ObservationRegistry observations;
        private final MeterRegistry meters;
        private final ObjectProvider<Toolgate> toolgate;
        private volatile ToolgateObservability installed;

        Observability(ObservationRegistry observations, MeterRegistry meters, ObjectProvider<Toolgate> toolgate) {
            this.observations = observations;
            this.meters = meters;
            this.toolgate = toolgate;
        }

        @Override
        public void customize(ToolgateBuilder builder) {
            installed = ToolgateObservability.install(builder, observations, meters);
        }

        @Override
        public void afterSingletonsInstantiated() {
            Toolgate gate = toolgate.getIfUnique();
            if (installed != null && gate != null) {
                installed.bind(gate);
            }
        }
    }
}
