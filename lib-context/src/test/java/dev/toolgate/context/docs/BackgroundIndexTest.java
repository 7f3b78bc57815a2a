package dev.toolgate.context.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.spi.InMemoryStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An index built in the background: the host's start-up does not wait for it, the first call does,
 * and a build that fails or takes too long fails the calls that asked, recorded, with a clear message.
 */
@Timeout(60)
class BackgroundIndexTest {

    private final CallContext reader = CallContext.of(Principal.user("u", "docs.read"));
    private final CountDownLatch release = new CountDownLatch(1);
    private Toolgate gate;

    @AfterEach
    void close() {
        release.countDown();
        if (gate != null) {
            gate.close();
        }
    }

    private Toolgate gate(Supplier<DocsIndex> index) {
        gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).build();
        gate.registry().register(DocsTools.tools(index, "docs.read"));
        return gate;
    }

    private DocsIndex afterRelease() {
        try {
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return DocsIndex.fromClasspath("toolgate-docs");
    }

    @Test
    void startUpDoesNotWaitAndTheFirstCallWaitsForTheBuild() throws Exception {
        Supplier<DocsIndex> index = DocsIndex.inBackground(this::afterRelease, Duration.ofSeconds(30));
        Toolgate gate = gate(index); // returned while the build is held: registration needs no index

        CompletableFuture<Executed> first = CompletableFuture.supplyAsync(() ->
                (Executed) gate.call(reader, DocsTools.SEARCH_DOCS, "{\"query\":\"SQL guard hostile statements\"}"));
        Thread.sleep(200);
        assertThat(first).as("the call waits for the index").isNotDone();
        release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS).result().path("hits").path(0).path("slug").asString()).isEqualTo("lib-jdbc");
    }

    @Test
    void aBuildThatFailsFailsTheCallsRecordedAndSaysWhy() {
        Toolgate gate = gate(DocsIndex.inBackground(() -> {
            throw new IllegalArgumentException("no classpath folder 'docs'");
        }, Duration.ofSeconds(5)));

        assertThatThrownBy(() -> gate.call(reader, DocsTools.LIST_DOCS, "{}"))
                .isInstanceOf(ToolExecutionException.class)
                .hasMessageContaining("could not be built").hasMessageContaining("no classpath folder 'docs'");
        assertThat(gate.findCalls(CallQuery.latest(10))).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(CallStatus.FAILED));
    }

    @Test
    void aBuildNotDoneInTimeFailsTheCallInsteadOfHangingIt() {
        Toolgate gate = gate(DocsIndex.inBackground(this::afterRelease, Duration.ofMillis(100)));

        assertThatThrownBy(() -> gate.call(reader, DocsTools.GET_DOC, "{\"slug\":\"README\"}"))
                .isInstanceOf(ToolExecutionException.class).hasMessageContaining("still building after 100 ms");
        release.countDown();
    }
}
