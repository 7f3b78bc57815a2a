package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.budget.ToolBudget;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.testkit.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Two app instances, each with its own gate, pool and console, on one PostgreSQL database: operators
 * on both consoles decide the same cards at once; exactly one decision wins each card and the others
 * are told who decided it. Needs {@code TOOLGATE_TEST_PG_URL} (required under {@code CI=true}).
 */
class PostgresConsoleTest {

    private static String url() {
        return TestPostgres.freshSchema("console");
    }

    @Test
    void operatorsOnTwoInstancesRaceForTheSameCardsAndExactlyOneWinsEach() throws Exception {
        String url = url();
        try (ConsoleFixture one = new ConsoleFixture(b -> b.store(JdbcStore.builder().url(url).poolSize(4).build())
                        .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO), c -> { });
             ConsoleFixture two = new ConsoleFixture(b -> b.store(JdbcStore.builder().url(url).poolSize(4).build())
                        .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO), c -> { })) {
            List<ConsoleFixture.Client> operators = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                operators.add(one.client().signedIn("alice"));
                operators.add(two.client().signedIn("dave"));
            }
            ExecutorService pool = Executors.newFixedThreadPool(operators.size());
            try {
                for (int round = 0; round < 15; round++) {
                    String callId = (round % 2 == 0 ? one : two).carolProposes("Race " + round);
                    assertThat(json(operators.get(1).get("/api/inbox")).toString()).as("the other instance sees it")
                            .contains(callId);
                    CountDownLatch start = new CountDownLatch(1);
                    List<Future<ConsoleResponse>> answers = new ArrayList<>();
                    for (int i = 0; i < operators.size(); i++) {
                        ConsoleFixture.Client operator = operators.get(i);
                        String action = i == 5 ? "deny" : "approve";
                        answers.add(pool.submit(() -> {
                            start.await();
                            return operator.post("/api/inbox/" + callId + "/" + action,
                                    action.equals("deny") ? "{\"reason\":\"race\"}" : "{}");
                        }));
                    }
                    start.countDown();
                    int won = 0;
                    for (Future<ConsoleResponse> answer : answers) {
                        ConsoleResponse r = answer.get(60, TimeUnit.SECONDS);
                        if (r.status() == 200) {
                            won++;
                        } else {
                            assertThat(r.status()).as(r.bodyText()).isEqualTo(409);
                            assertThat(json(r).get("message").asString()).matches("already decided: (applied|being applied|rejected) by (alice|dave)");
                        }
                    }
                    assertThat(won).as("round " + round).isEqualTo(1);
                }
            } finally {
                pool.shutdownNow();
            }
            long applied = one.gate.findCalls(dev.toolgate.audit.CallQuery.latest(100).tool("incident.create")
                    .status(dev.toolgate.audit.CallStatus.APPLIED)).size();
            assertThat(one.incidents.size() + two.incidents.size() - 2).as("each approved card ran once").isEqualTo((int) applied);
        }
    }
}
