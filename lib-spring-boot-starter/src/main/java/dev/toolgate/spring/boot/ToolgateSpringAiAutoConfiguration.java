package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.springai.ToolgateAdvisor;
import dev.toolgate.springai.ToolgateToolCallbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The Spring AI side: the application's {@code @Tool} beans marked {@code @Governed} become governed
 * tools; the governed tools are a {@link ToolCallbackProvider} ({@link ToolgateToolCallbacks}) whose
 * {@link ToolgateAdvisor} runs the consent loop (every tool call answered, decisions told back,
 * duplicates guarded); and every {@code ChatClient} built from the application's
 * {@code ChatClient.Builder} gets that advisor ({@code toolgate.spring-ai.advise-chat-clients}).
 */
@AutoConfiguration(after = {ToolgateAutoConfiguration.class, ToolgateSecurityAutoConfiguration.class})
@ConditionalOnClass({ToolCallbackProvider.class, ToolgateToolCallbacks.class})
@ConditionalOnBooleanProperty(name = "toolgate.spring-ai.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ToolgateProperties.class)
public class ToolgateSpringAiAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateSpringAiAutoConfiguration.class);

    /**
     * Adds the application's {@code @Governed} {@code @Tool} methods to the gate as governed tools (none when
     * no bean has one), found when the gate is built.
     */
    @Bean
    ToolgateBuilderCustomizer toolgateGovernedTools(ConfigurableListableBeanFactory beans, ToolgateProperties properties) {
        return builder -> GovernedBeans.find(beans, properties.getSpringAi().getPluginId()).ifPresent(builder::provider);
    }

    /** The governed tools as Spring AI callbacks, for the principal of each request. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Toolgate.class)
    ToolgateToolCallbacks toolgateToolCallbacks(Toolgate toolgate, ToolgateProperties properties,
                                                ObjectProvider<CurrentPrincipal> current) {
        CurrentPrincipal who = current.getIfUnique();
        if (who == null) {
            LOG.warn("Toolgate offers the model no tools: define a CurrentPrincipal bean (or add Spring Security) to say"
                    + " who each chat request is for");
        }
        return ToolgateToolCallbacks.builder(toolgate)
                .principal(() -> who == null ? null : who.get().orElse(null))
                .consent(properties.getSpringAi().getConsent())
                .build();
    }

    /** The consent loop of a {@code ChatClient}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ToolgateToolCallbacks.class)
    ToolgateAdvisor toolgateAdvisor(ToolgateToolCallbacks tools, ToolgateProperties properties) {
        return ToolgateAdvisor.builder(tools).maxCallsPerTurn(properties.getSpringAi().getMaxCallsPerTurn()).build();
    }

    /** Adds the Toolgate advisor to every {@code ChatClient} built from the application's {@code ChatClient.Builder}. */
    @Bean
    @ConditionalOnBean(ToolgateAdvisor.class)
    @ConditionalOnBooleanProperty(name = "toolgate.spring-ai.advise-chat-clients", matchIfMissing = true)
    ChatClientCustomizer toolgateChatClientCustomizer(ToolgateAdvisor advisor) {
        return builder -> builder.defaultAdvisors(advisor);
    }
}
