package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.ToolgateStore;
import dev.toolgate.testkit.TestPostgres;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/** Where the gate keeps its state: the application's DataSource, or memory; and the gate's settings from properties. */
class StoreConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ToolgateAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false")
            .withBean(Incidents.class);

    /** An application without a DataSource (no JDBC auto-configuration). */
    private final ApplicationContextRunner noDataSource = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ToolgateAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false")
            .withBean(Incidents.class);

    @Test
    void withoutADataSourceTheStateIsInMemory() {
        noDataSource.run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(DataSource.class);
                    assertThat(context.getBean(ToolgateStore.class)).isInstanceOf(InMemoryStore.class);
                    Toolgate gate = context.getBean(Toolgate.class);
                    assertThat(gate.registry().find("incident.list")).isPresent();
                    assertThat(gate.registry().find("incident.create")).isPresent();
                });
    }

    @Test
    void onTheApplicationsH2DataSourceTheSchemaIsCreatedAndCallsAreAudited() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-h2;DB_CLOSE_DELAY=-1")
                .run(context -> {
                    assertThat(context.getBean(ToolgateStore.class)).isInstanceOf(JdbcStore.class);
                    Toolgate gate = context.getBean(Toolgate.class);
                    CallResult result = gate.call(CallContext.of(Principal.user("ana", "incident.read")), "incident.list", "{}");
                    assertThat(result).isInstanceOf(dev.toolgate.call.Executed.class);
                    JdbcTemplate sql = new JdbcTemplate(context.getBean(DataSource.class));
                    Integer rows = sql.queryForObject("SELECT COUNT(*) FROM toolgate_call WHERE tool_name = 'incident.list'", Integer.class);
                    assertThat(rows).isEqualTo(1);
                });
    }

    @Test
    void schemaValidateOnAnEmptyDatabaseStopsTheStartSayingWhy() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-empty;DB_CLOSE_DELAY=-1", "toolgate.schema=validate")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(rootMessage(context.getStartupFailure())).containsIgnoringCase("schema");
                });
    }

    @Test
    void storeJdbcWithoutADataSourceIsATypedStartupError() {
        noDataSource.withPropertyValues("toolgate.store=jdbc")
                .run(context -> {
                    assertThat(context).hasFailed();
                    InvalidToolgatePropertyException e = cause(context.getStartupFailure(), InvalidToolgatePropertyException.class);
                    assertThat(e.property()).isEqualTo("toolgate.store");
                    assertThat(e.getMessage()).contains("no single DataSource");
                });
    }

    @Test
    void storeMemoryIgnoresTheDataSource() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-ignored", "toolgate.store=memory")
                .run(context -> assertThat(context.getBean(ToolgateStore.class)).isInstanceOf(InMemoryStore.class));
    }

    @Test
    void propertiesReachTheGate() {
        runner.withPropertyValues("toolgate.budget.calls=2", "toolgate.budget.window=1m", "toolgate.approver-rule=ops.approve",
                        "toolgate.proposal-ttl=3m", "toolgate.max-pending-per-session=4", "toolgate.require-distinct-approver=false",
                        "toolgate.result-limit=64KB", "toolgate.store=memory")
                .run(context -> {
                    Toolgate gate = context.getBean(Toolgate.class);
                    assertThat(gate.settings().approverRule()).isEqualTo("ops.approve");
                    assertThat(gate.settings().interactiveTtl()).isEqualTo(Duration.ofMinutes(3));
                    assertThat(gate.settings().maxPendingPerSession()).isEqualTo(4);
                    assertThat(gate.settings().requireDistinctApprover()).isFalse();
                    assertThat(gate.settings().resultLimitBytes()).isEqualTo(64 * 1024);
                    CallContext ana = CallContext.of(Principal.user("ana", "incident.read"));
                    gate.call(ana, "incident.list", "{}");
                    gate.call(ana, "incident.list", "{}");
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gate.call(ana, "incident.list", "{}"))
                            .isInstanceOf(BudgetExceededException.class);
                });
    }

    @Test
    void budgetOffLetsEveryCallThrough() {
        runner.withPropertyValues("toolgate.budget.enabled=false", "toolgate.store=memory").run(context -> {
            Toolgate gate = context.getBean(Toolgate.class);
            CallContext ana = CallContext.of(Principal.user("ana", "incident.read"));
            for (int i = 0; i < 100; i++) {
                gate.call(ana, "incident.list", "{}");
            }
            assertThat(gate.findCalls(dev.toolgate.audit.CallQuery.latest(500))).hasSize(100);
        });
    }

    @Test
    void theApplicationsOwnBeansWin() {
        InMemoryStore mine = new InMemoryStore();
        runner.withBean("myStore", ToolgateStore.class, () -> mine)
                .withBean(ToolgateBuilderCustomizer.class, () -> builder -> builder.approverRule("custom.rule"))
                .run(context -> {
                    assertThat(context.getBean(ToolgateStore.class)).isSameAs(mine);
                    assertThat(context.getBean(Toolgate.class).settings().approverRule()).isEqualTo("custom.rule");
                });
        runner.withPropertyValues("toolgate.store=memory")
                .withBean("myGate", Toolgate.class, () -> Toolgate.builder().discoverTools(false).discoverComponents(false)
                        .store(new InMemoryStore()).build())
                .run(context -> assertThat(context.getBean(Toolgate.class).registry().tools()).isEmpty());
    }

    @Test
    void closingTheContextClosesTheGateButNotTheApplicationsPool() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:starter-close;DB_CLOSE_DELAY=-1").run(context -> {
            Toolgate gate = context.getBean(Toolgate.class);
            DataSource dataSource = context.getBean(DataSource.class);
            context.close();
            assertThat(dataSource).isInstanceOf(com.zaxxer.hikari.HikariDataSource.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> gate.call(CallContext.of(Principal.user("ana", "incident.read")), "incident.list", "{}"))
                    .isInstanceOf(RuntimeException.class);
        });
    }

    @Test
    void twoInstancesOnOnePostgresShareOneBudget() {
        String url = TestPostgres.freshSchema("starter_budget");
        ApplicationContextRunner onPostgres = runner.withPropertyValues("spring.datasource.url=" + url,
                "toolgate.budget.calls=3", "toolgate.budget.window=10m");
        onPostgres.run(a -> onPostgres.run(b -> {
            assertThat(a.getBean(DataSource.class)).isNotSameAs(b.getBean(DataSource.class));
            assertThat(a.getBean(ToolgateStore.class).toString()).contains("PostgreSQL");
            CallContext ana = CallContext.of(Principal.user("ana", "incident.read"));
            a.getBean(Toolgate.class).call(ana, "incident.list", "{}");
            b.getBean(Toolgate.class).call(ana, "incident.list", "{}");
            a.getBean(Toolgate.class).call(ana, "incident.list", "{}");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.getBean(Toolgate.class).call(ana, "incident.list", "{}"))
                    .isInstanceOf(BudgetExceededException.class);
        }));
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        StringBuilder all = new StringBuilder();
        while (root != null) {
            all.append(root.getMessage()).append('\n');
            root = root.getCause();
        }
        return all.toString();
    }

    static <T extends Throwable> T cause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + t, t);
    }
}
