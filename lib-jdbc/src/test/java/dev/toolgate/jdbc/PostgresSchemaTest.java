package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.testkit.Together;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresSchemaTest extends SchemaContract {

    @Override
    String emptyDatabase(String name) {
        return PostgresDatabase.freshSchema("schema_" + name);
    }

    @Test
    void instancesStartingTogetherAllApplyTheSchema() throws Exception {
        String url = emptyDatabase("together");
        int instances = 4;
        Together.run(instances, i -> {
            JdbcStore.builder().url(url).poolSize(1).build().close();
            return null;
        });
        assertThat(query(url, "SELECT COUNT(*) FROM toolgate_schema_version")).isEqualTo(1);
    }

    /**
     * A refused admission only reads: the function locks the principal in the server's lock table, so
     * the budget row keeps its version and gets no tuple lock (a {@code FOR UPDATE} refusal left its
     * transaction id in the row's xmax, with a WAL record and a transaction id per refusal). Admissions and
     * a claim's admission still count exactly: 2 reads then 1 apply fill a cap of 3.
     */
    @Test
    void aRefusedAdmissionWritesNothingToTheBudgetRow() throws Exception {
        String url = emptyDatabase("refusal");
        try (JdbcStore store = JdbcStore.builder().url(url).poolSize(2).build();
             Hosts host = Hosts.on(store, b -> b.budget(ToolBudget.perPrincipal(3, Duration.ofMinutes(10))))) {
            var ctx = Hosts.ctx(Hosts.WRITER);
            var proposal = host.gate().propose(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
            host.gate().call(ctx, "notes.list", "{}");
            host.gate().apply(ctx, proposal.token()); // the claim's admission, in the claim's transaction
            String[] before = budgetRowVersion(url);

            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> host.gate().call(ctx, "notes.list", "{}")).isInstanceOf(BudgetExceededException.class);
            }

            assertThat(budgetRowVersion(url)).as("the budget row (xmin, xmax, ctid) after three refusals").containsExactly(before);
            assertThat(query(url, "SELECT COUNT(*) FROM toolgate_budget_admission")).isEqualTo(3);
        }
    }

    private static String[] budgetRowVersion(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT xmin::text, xmax::text, ctid::text FROM toolgate_budget")) {
            assertThat(rs.next()).as("one budget row").isTrue();
            String[] version = {rs.getString(1), rs.getString(2), rs.getString(3)};
            assertThat(rs.next()).as("one budget row").isFalse();
            return version;
        }
    }
}
