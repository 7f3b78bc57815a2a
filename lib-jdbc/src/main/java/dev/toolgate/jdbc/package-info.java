/**
 * Durable Toolgate storage on H2 (embedded default) and PostgreSQL (many instances):
 * {@link dev.toolgate.jdbc.JdbcStore}, configured with its builder or discovered through
 * {@link dev.toolgate.jdbc.JdbcStoreProvider}. Everything else in this package is internal.
 */
package dev.toolgate.jdbc;
