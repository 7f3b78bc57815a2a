package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ranking quality on the real corpus: Toolgate's own README files (the root README and the module READMEs),
 * copied to the test classpath folder {@code toolgate-docs/} by the module pom. Each query names the page,
 * and for section queries also the {@code ##}/{@code ###} heading, that a reader would open to answer it.
 */
class RankingQualityTest {

    static DocsIndex index;

    @BeforeAll
    static void load() {
        index = DocsIndex.fromClasspath("toolgate-docs");
    }

    @Test
    void theCorpusIsTheProjectsReadmes() {
        List<String> modules = modulesWithReadmes();
        assertThat(modules).contains("lib-codemode", "lib-context", "lib-jdbc", "lib-mcp-adapter");
        List<String> slugs = new java.util.ArrayList<>(List.of("README"));
        slugs.addAll(modules);
        assertThat(index.pages()).extracting(DocPage::slug).containsExactlyElementsOf(slugs);
        List<String> sections = new java.util.ArrayList<>(List.of("(root)"));
        sections.addAll(modules);
        assertThat(index.sections()).containsExactlyElementsOf(sections);
    }

    /** The project's modules that have a README, sorted: the corpus the module's pom copies to the test classpath. */
    static List<String> modulesWithReadmes() {
        try (Stream<java.nio.file.Path> dirs = java.nio.file.Files.list(java.nio.file.Path.of("").toAbsolutePath().getParent())) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("lib-"))
                    .filter(d -> java.nio.file.Files.isRegularFile(d.resolve("README.md")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static Stream<Arguments> pageQueries() {
        return Stream.of(
                Arguments.of("how do I roll back a durable run", "README"),
                Arguments.of("SQL guard hostile statements", "lib-jdbc"),
                Arguments.of("elicitation destructive apply MCP", "lib-mcp-adapter"),
                Arguments.of("GraalJS sandbox statement limit", "lib-codemode"),
                Arguments.of("point every instance at PostgreSQL instead of an H2 file", "lib-jdbc"),
                Arguments.of("what JavaScript can the model write against the tools", "lib-codemode"),
                Arguments.of("upgrading the database schema from an older version", "lib-jdbc"),
                Arguments.of("JSON-RPC error codes of the MCP adapter", "lib-mcp-adapter"),
                Arguments.of("write a plugin whose tool has a dry-run", "README"),
                Arguments.of("decision table destructive tools auto permission mode", "README"),
                Arguments.of("audit trail table columns", "lib-jdbc"),
                Arguments.of("Streamable HTTP slow clients limits", "lib-mcp-adapter"),
                Arguments.of("which JavaScript globals are missing in the sandbox", "lib-codemode"),
                Arguments.of("which tools does tools/list show a principal", "lib-mcp-adapter"),
                Arguments.of("benchmark throughput of a governed read call against a raw insert", "README"),
                Arguments.of("run the JDBC store tests on PostgreSQL", "lib-jdbc"),
                Arguments.of("script timeout and memory limits", "lib-codemode"),
                Arguments.of("calls in doubt after a crash", "README"),
                Arguments.of("rows returned by a query and the row cap", "lib-jdbc"),
                Arguments.of("explicit configuration versus ServiceLoader discovery", "README"),
                Arguments.of("polyglot js-community version on Java 17", "lib-codemode"),
                Arguments.of("McpSyncClient tests over Streamable HTTP", "lib-mcp-adapter"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pageQueries")
    void thePageAReaderWouldOpenRanksFirst(String query, String slug) {
        DocSearch search = index.search(query, 5);
        assertThat(search.hits()).as("hits for '%s'", query).isNotEmpty();
        assertThat(search.hits().get(0).slug()).as("top hit for '%s': %s", query, search.hits()).isEqualTo(slug);
        assertThat(search.quality()).as("quality for '%s'", query).isEqualTo(DocSearch.Quality.STRONG);
    }

    static Stream<Arguments> sectionQueries() {
        String durable = "Durable executions: multi-step runs that pause, resume by replay, and roll back";
        return Stream.of(
                Arguments.of("roll back a durable run after replay", "README", durable),
                Arguments.of("interrupted calls sweeper outcome due", "README", "Calls in doubt, and storage that shrinks"),
                Arguments.of("decision table effect mode permission mode", "README", "How a call is governed"),
                Arguments.of("ServiceLoader discovers providers, explicit configuration wins", "README", "Configuration"),
                Arguments.of("store settings: system property or environment variable", "lib-jdbc", "Use"),
                Arguments.of("p50 p99 latency benchmark run", "README", "Benchmark"),
                Arguments.of("every invariant has a test in a contract suite", "README",
                        "What is guaranteed, and where it is tested"),
                Arguments.of("modules artifacts project layout", "README", "Project layout"),
                Arguments.of("JDK Maven wrapper and the demo", "README", "Quick start"),
                Arguments.of("UnknownToolException ForbiddenException typed faults", "README", "A host"),
                Arguments.of("upgrade a version 1 database outcome_due_at", "lib-jdbc", "Upgrading from version 1"),
                Arguments.of("version 3 script adds execution_id and step_seq columns", "lib-jdbc",
                        "Upgrading from version 2"),
                Arguments.of("single-use token guarded update across instances", "lib-jdbc",
                        "Guarantees and how they are kept"),
                Arguments.of("statements per operation and commit cost", "lib-jdbc", "Statements per operation"),
                Arguments.of("DatabaseSource query and tables tools", "lib-jdbc", "A database as a tool source"),
                Arguments.of("ConcurrencyContract and the gate contract tests on PostgreSQL", "lib-jdbc", "Tests"),
                Arguments.of("tables prefixed toolgate_ and the audit trail", "lib-jdbc", "Schema"),
                Arguments.of("annotations readOnlyHint destructiveHint", "lib-mcp-adapter", "What a client sees"),
                Arguments.of("JSON-RPC error -32602 for an unknown tool", "lib-mcp-adapter", "Errors"),
                Arguments.of("when stdin ends the server waits for requests still running", "lib-mcp-adapter", "Transports"),
                Arguments.of("McpSource puts a remote server behind a gate", "lib-mcp-adapter",
                        "Remote MCP servers as tool sources"),
                Arguments.of("McpDemoServer launched with plain java", "lib-mcp-adapter", "The runnable demo server"),
                Arguments.of("the three codemode tools: effect, input and result", "lib-codemode", "The three tools"),
                Arguments.of("DeniedError ValidationError ToolError the code may catch", "lib-codemode", "Writing code"),
                Arguments.of("HostAccess NONE no I/O in a fresh context", "lib-codemode", "The sandbox"),
                Arguments.of("Graal compiler Truffle interpreter", "lib-codemode", "Runtimes: what JDK 21+ or GraalVM gains"),
                Arguments.of("StorageBenchmark of a script making 100 read calls", "lib-codemode", "Cost"));
    }

    @ParameterizedTest(name = "{0} -> {1} / {2}")
    @MethodSource("sectionQueries")
    void theSectionAReaderWouldOpenRanksFirst(String query, String slug, String heading) {
        DocSearch search = index.search(query, 5);
        assertThat(search.hits()).as("hits for '%s'", query).isNotEmpty();
        DocHit top = search.hits().get(0);
        assertThat(top.slug() + " / " + top.heading()).as("top hit for '%s': %s", query, search.hits())
                .isEqualTo(slug + " / " + heading);
    }
}
