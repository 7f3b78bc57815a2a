package dev.toolgate.jdbc;

import com.zaxxer.hikari.SQLExceptionOverride;
import dev.toolgate.spi.StoreFault;
import java.sql.SQLException;

/**
 * Which store faults cost the pool its connections, and HikariCP's verdict on them. HikariCP drops a
 * connection whose statement failed with a connection error ("marked as broken") and logs a WARN with
 * the driver's stack trace for each: during an outage, one per pooled connection, beside the store's own
 * single WARN. The store retires its connections itself instead ({@code Db}: every pooled connection,
 * idle ones at once and busy ones when they come back, at each refusal for such a fault), so for these
 * faults HikariCP is told not to; for every other failure HikariCP decides as usual.
 */
final class LostConnections implements SQLExceptionOverride {

    /** Whether a refusal for {@code fault} means the pool's connections are gone or unusable. */
    static boolean lost(StoreFault fault) {
        return switch (fault) {
            case UNREACHABLE, SHUTTING_DOWN, TIMEOUT -> true;
            default -> false;
        };
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        StoreFault fault = StoreFaults.ofSql(e);
        return fault != null && lost(fault) ? Override.DO_NOT_EVICT : Override.CONTINUE_EVICT;
    }
}
