/**
 * A database as a governed tool source: {@link dev.toolgate.jdbc.source.DatabaseSource} offers a
 * read-only query tool and a table listing over a host's {@link javax.sql.DataSource}, behind a guard
 * that refuses every statement but one read, in a read-only transaction with a statement timeout that
 * is always rolled back.
 */
package dev.toolgate.jdbc.source;
