package dev.toolgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every database failure is classified once, by code, into the store's typed errors; the rest pass unchanged. */
class StoreFaultsTest {

    private static RuntimeException jdbi(Throwable cause) {
        return new UnableToExecuteStatementException("statement failed", cause, null);
    }

    @ParameterizedTest(name = "SQLState {0} / code {1} -> {2}")
    @CsvSource({
            "57P01, 0, SHUTTING_DOWN, true",   // terminating connection due to administrator command
            "57P02, 0, SHUTTING_DOWN, true",
            "57P03, 0, SHUTTING_DOWN, true",   // the database system is starting up
            "08006, 0, UNREACHABLE, true",     // I/O error, connection lost
            "08001, 0, UNREACHABLE, true",     // connection refused
            "57014, 0, TIMEOUT, true",         // statement_timeout
            "55P03, 0, TIMEOUT, true",         // lock_timeout
            "40001, 0, CONFLICT, true",        // serialization failure (H2: deadlock)
            "40P01, 0, CONFLICT, true",        // deadlock
            "53300, 0, BUSY, true",            // too many connections
            "25006, 0, READ_ONLY, false",      // read-only transaction (a standby)
            "53100, 0, DISK_FULL, false",      // disk full
            "90020, 90020, LOCKED, false",     // H2: database may be already in use
            "90030, 90030, CORRUPT, false",    // H2: file corrupted
            "90097, 90097, READ_ONLY, false",  // H2: database is read only
            "90100, 90100, DISK_FULL, false",  // H2: no disk space
            "HYT00, 50200, TIMEOUT, true",     // H2: lock timeout
    })
    void aDatabaseFaultIsATypedStoreError(String state, int code, StoreFault fault, boolean retryable) {
        RuntimeException e = StoreFaults.classify(jdbi(new SQLException("the database said so", state, code)), Duration.ofSeconds(5));
        assertThat(e).isInstanceOf(StoreUnavailableException.class).hasMessageStartingWith("Toolgate store unavailable: ")
                .hasMessageContaining("the database said so");
        StoreUnavailableException u = (StoreUnavailableException) e;
        assertThat(u.fault()).isEqualTo(fault);
        assertThat(u.retryable()).isEqualTo(retryable);
        assertThat(u.retryAfter().isPresent()).isEqualTo(retryable);
        assertThat(u.retryAfterSeconds()).isEqualTo(retryable ? u.retryAfter().orElseThrow().toSeconds() : 0);
        assertThat(u.advice()).isNotBlank().doesNotContain("the database said so");
    }

    @ParameterizedTest(name = "SQLState {0} is no fault of the store")
    @CsvSource({"23505, 23505", "42P01, 0", "22001, 22001", "42000, 42000"})
    void otherErrorsPassUnchanged(String state, int code) {
        RuntimeException original = jdbi(new SQLException("constraint or statement", state, code));
        assertThat(StoreFaults.classify(original, Duration.ofSeconds(5))).isSameAs(original);
    }

    @Test
    void aPoolTimeoutIsBusyUnlessTheLastConnectionFailureSaysTheDatabaseIsDown() {
        var busy = (StoreUnavailableException) StoreFaults.classify(jdbi(new SQLTransientConnectionException(
                "toolgate-1 - Connection is not available, request timed out after 500ms.")), Duration.ofMillis(500));
        assertThat(busy.fault()).isEqualTo(StoreFault.BUSY);
        assertThat(busy).hasMessage("Toolgate store unavailable: no connection within 500 ms (pool exhausted or database down)");

        var down = (StoreUnavailableException) StoreFaults.classify(jdbi(new SQLTransientConnectionException(
                "toolgate-1 - Connection is not available, request timed out after 5000ms.", "08001",
                new SQLException("Connection to 127.0.0.1:1 refused", "08001"))), Duration.ofSeconds(5));
        assertThat(down.fault()).isEqualTo(StoreFault.UNREACHABLE);
        assertThat(down).hasMessageContaining("no connection within 5 s").hasMessageContaining("refused");
    }

    @Test
    void socketTimeoutsRefusedConnectionsAndAFullDiskAreTypedByTheirCause() {
        assertThat(((StoreUnavailableException) StoreFaults.classify(jdbi(new SocketTimeoutException("Read timed out")), null))
                .fault()).isEqualTo(StoreFault.TIMEOUT);
        SQLException driverIo = new SQLException("An I/O error occurred while sending to the backend.", "08006",
                new SocketTimeoutException("Read timed out"));
        assertThat(((StoreUnavailableException) StoreFaults.classify(jdbi(driverIo), null)).fault())
                .as("a socket timeout under the driver's connection error").isEqualTo(StoreFault.TIMEOUT);
        assertThat(((StoreUnavailableException) StoreFaults.classify(jdbi(new ConnectException("Connection refused")), null))
                .fault()).isEqualTo(StoreFault.UNREACHABLE);
        SQLException h2Io = new SQLException("IO Exception: \"java.io.IOException: No space left on device\"", "90028", 90028);
        assertThat(((StoreUnavailableException) StoreFaults.classify(jdbi(h2Io), null)).fault()).isEqualTo(StoreFault.DISK_FULL);
        assertThat(((StoreUnavailableException) StoreFaults.classify(jdbi(new IOException("No space left on device")), null))
                .fault()).isEqualTo(StoreFault.DISK_FULL);
    }

    @Test
    void theMessageCarriesTheFirstLineOfWhatTheDatabaseSaidOnly() {
        SQLException detailed = new SQLException("terminating connection\n  Detail: Key (id)=(secret-value)", "57P01");
        assertThat(StoreFaults.classify(jdbi(detailed), null)).hasMessageNotContaining("secret-value")
                .hasMessageContaining("terminating connection");
    }

    @ParameterizedTest(name = "SQLState {0} / code {1}: HikariCP drops the connection itself: {2}")
    @CsvSource({
            "08006, 0, false",       // connection lost: the store retires the pool's connections, without a WARN each
            "08001, 0, false",
            "57P01, 0, false",       // administrator shutdown
            "57014, 0, false",       // statement timeout
            "90098, 90098, false",   // H2: database closed
            "53100, 0, true",        // disk full: never retired by the store (an H2 file keeps its commits open)
            "90100, 90100, true",
            "23505, 0, true",        // a unique violation: no fault of the database, HikariCP as usual
            "42P01, 0, true"})
    void hikariIsToldToKeepOnlyTheConnectionsTheStoreRetiresItself(String state, int code, boolean hikariDecides) {
        com.zaxxer.hikari.SQLExceptionOverride.Override verdict = new LostConnections()
                .adjudicate(new SQLException("failed", state, code));
        assertThat(verdict).isEqualTo(hikariDecides ? com.zaxxer.hikari.SQLExceptionOverride.Override.CONTINUE_EVICT
                : com.zaxxer.hikari.SQLExceptionOverride.Override.DO_NOT_EVICT);
    }
}
