package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.testkit.Notes;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.StoreProvider;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Adding toolgate-jdbc plus a URL is all a host does; an explicit store still wins. */
class DiscoveryTest {

    private static ToolgateBuilder host(Notes notes) {
        return Toolgate.builder().discoverTools(false).provider(notes.provider()).sweepInterval(Duration.ZERO);
    }

    @Test
    void theProviderIsListedForServiceLoader() {
        assertThat(ServiceLoader.load(StoreProvider.class).stream().map(ServiceLoader.Provider::type))
                .contains(JdbcStoreProvider.class);
        assertThat(new JdbcStoreProvider().name()).isEqualTo("jdbc");
        assertThat(new JdbcStoreProvider().priority()).isEqualTo(100);
    }

    @Test
    void toolgateBuilderPicksTheJdbcStoreFromTheClasspath() throws SQLException {
        String url = TestStores.h2MemoryUrl("discovered") + ";DB_CLOSE_DELAY=-1";
        try (Toolgate gate = host(new Notes()).storeSetting("jdbc.url", url).build()) {
            gate.call(Hosts.ctx(Hosts.READER), "notes.list", "{}");
        }
        assertThat(countCalls(url)).isEqualTo(1);
    }

    @Test
    void theUrlCanComeFromASystemProperty() throws SQLException {
        String url = TestStores.h2MemoryUrl("from-property") + ";DB_CLOSE_DELAY=-1";
        System.setProperty("toolgate.jdbc.url", url);
        try (Toolgate gate = host(new Notes()).build()) {
            gate.call(Hosts.ctx(Hosts.READER), "notes.list", "{}");
        } finally {
            System.clearProperty("toolgate.jdbc.url");
        }
        assertThat(countCalls(url)).isEqualTo(1);
    }

    @Test
    void anExplicitStoreWinsOverDiscovery() throws SQLException {
        String url = TestStores.h2MemoryUrl("not-used") + ";DB_CLOSE_DELAY=-1";
        InMemoryStore explicit = new InMemoryStore();
        try (Toolgate gate = host(new Notes()).storeSetting("jdbc.url", url).store(explicit).build()) {
            gate.call(Hosts.ctx(Hosts.READER), "notes.list", "{}");
        }
        assertThat(explicit.calls().query(dev.toolgate.audit.CallQuery.latest(10))).hasSize(1);
        try (Connection c = DriverManager.getConnection(url);
             ResultSet tables = c.getMetaData().getTables(null, null, "TOOLGATE_CALL", null)) {
            assertThat(tables.next()).as("the JDBC store was never opened").isFalse();
        }
    }

    private static int countCalls(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM toolgate_call")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
