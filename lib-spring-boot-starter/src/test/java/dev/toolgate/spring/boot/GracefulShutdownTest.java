package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolProvider;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A call in flight over HTTP when the application shuts down finishes, is answered, and is recorded:
 * the web server drains its requests (graceful shutdown) before the gate closes.
 */
class GracefulShutdownTest {

    static final CountDownLatch STARTED = new CountDownLatch(1);

    record NoInput() {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        ToolProvider slow() {
            Tool<?, ?> report = Tool.builder("report", NoInput.class).description("A slow read")
                    .effect(Effect.READ)
                    .execute((NoInput in, ToolContext c) -> {
                        STARTED.countDown();
                        Thread.sleep(1_500);
                        return "done";
                    })
                    .build();
            return ToolProvider.of("slow", report);
        }

        @Bean
        org.springframework.security.web.SecurityFilterChain open(
                org.springframework.security.config.annotation.web.builders.HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().permitAll()).build();
        }

        @Bean
        SlowController controller(Toolgate gate) {
            return new SlowController(gate);
        }
    }

    @RestController
    static class SlowController {
        private final Toolgate gate;

        SlowController(Toolgate gate) {
            this.gate = gate;
        }

        @GetMapping("/report")
        String report() {
            CallResult result = gate.call(CallContext.of(Principal.user("ana")), "slow.report", "{}");
            return result instanceof Executed executed ? executed.callId() : "not executed";
        }
    }

    @Test
    void aCallInFlightFinishesAndIsRecordedWhenTheApplicationStops() throws Exception {
        String url = "jdbc:h2:mem:starter-shutdown;DB_CLOSE_DELAY=-1";
        ConfigurableApplicationContext context = new SpringApplication(App.class).run("--server.port=0",
                "--server.shutdown=graceful", "--spring.lifecycle.timeout-per-shutdown-phase=20s",
                "--spring.datasource.url=" + url, "--toolgate.discover-plugins=false",
                "--toolgate.spring-ai.enabled=false");
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        CompletableFuture<HttpResponse<String>> inFlight = HttpClient.newHttpClient().sendAsync(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/report")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(STARTED.await(10, TimeUnit.SECONDS)).isTrue();
        context.close();

        HttpResponse<String> response = inFlight.get(20, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        String callId = response.body();
        assertThat(callId).isNotEqualTo("not executed");
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement();
             ResultSet row = s.executeQuery("SELECT status FROM toolgate_call WHERE id = '" + callId + "'")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getString(1)).isEqualTo("executed");
        }
        assertThat(context.isActive()).isFalse();
    }
}
