package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.PrincipalDirectory;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramProvider;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.notice.ApprovalNotifier;
import dev.toolgate.source.ToolSource;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.tool.ToolProvider;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * The gate itself: a {@link Toolgate} bean from the {@code toolgate.*} properties, its tools from
 * every {@link ToolProvider} bean (and the ServiceLoader plugins unless
 * {@code toolgate.discover-plugins=false}), and its store on the application's {@link DataSource}
 * (in memory without one). Every bean backs off when the application defines its own.
 *
 * <p>The gate closes with the application context, after the web server has stopped taking and has
 * finished its requests (Spring Boot's graceful shutdown), so calls that came in over HTTP finish
 * first. A change whose apply was cut by the close (a tool still running on another thread) is found
 * by the next sweep of any instance on the same database and marked in doubt for an operator.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@EnableConfigurationProperties(ToolgateProperties.class)
public class ToolgateAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateAutoConfiguration.class);

    /**
     * The store: a {@link JdbcStore} on the application's single {@link DataSource} (H2 or PostgreSQL;
     * the pool stays the application's), else an {@link InMemoryStore}, per {@code toolgate.store}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    ToolgateStore toolgateStore(ToolgateProperties properties, ObjectProvider<DataSource> dataSources) {
        properties.validate();
        DataSource dataSource = properties.getStore() == ToolgateProperties.StoreKind.MEMORY ? null : dataSources.getIfUnique();
        if (dataSource == null) {
            if (properties.getStore() == ToolgateProperties.StoreKind.JDBC) {
                throw new InvalidToolgatePropertyException("toolgate.store", "jdbc",
                        "auto or memory when the application has no single DataSource bean (it has "
                                + dataSources.stream().count() + ")");
            }
            LOG.info("Toolgate keeps its state in memory (no DataSource{}): lost on restart and not shared between"
                    + " instances", properties.getStore() == ToolgateProperties.StoreKind.MEMORY ? ", toolgate.store=memory" : "");
            return new InMemoryStore();
        }
        return JdbcStore.builder().dataSource(dataSource).schema(properties.getSchema()).build();
    }

    /** The gate, built from the properties, the beans the application has, and every customizer. */
    @Bean
    @ConditionalOnMissingBean
    Toolgate toolgate(ToolgateProperties properties, ToolgateStore store,
                      ObjectProvider<ToolProvider> providers,
                      ObjectProvider<ToolSource> sources,
                      ObjectProvider<ProgramProvider> programProviders,
                      ObjectProvider<ToolBudget> budget,
                      ObjectProvider<PrincipalDirectory> directory,
                      ObjectProvider<ToolCallListener> listeners,
                      ObjectProvider<ApprovalNotifier> notifiers,
                      ObjectProvider<ToolgateBuilderCustomizer> customizers,
                      org.springframework.beans.factory.ListableBeanFactory beans) {
        properties.validate();
        ToolgateBuilder builder = Toolgate.builder()
                .store(store)
                .discoverTools(properties.isDiscoverPlugins())
                .discoverComponents(properties.isDiscoverPlugins())
                .approverRule(properties.getApproverRule())
                .requireDistinctApprover(properties.isRequireDistinctApprover())
                .proposalTtl(properties.getProposalTtl())
                .unattendedProposalTtl(properties.getUnattendedProposalTtl())
                .maxPendingPerSession(properties.getMaxPendingPerSession())
                .executionTimeout(properties.getExecutionTimeout())
                .resultLimitBytes((int) properties.getResultLimit().toBytes())
                .maxArgumentBytes((int) properties.getMaxArgumentSize().toBytes())
                .sweepInterval(properties.getSweepInterval())
                .retention(properties.getRetention().toRetention());
        ToolgateProperties.Budget limits = properties.getBudget();
        builder.budget(budget.getIfAvailable(() -> limits.isEnabled()
                ? ToolBudget.perPrincipal(limits.getCalls(), limits.getWindow())
                : ToolBudget.unlimited()));
        directory.ifAvailable(builder::principalDirectory);
        providers.orderedStream().forEach(builder::provider);
        sources.orderedStream().forEach(builder::source);
        programProviders.orderedStream().forEach(builder::programs);
        beans.getBeansOfType(Program.class).forEach(builder::program); // a Program bean runs under its bean name
        listeners.orderedStream().forEach(builder::listener);
        notifiers.orderedStream().forEach(builder::notifier);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }
}
