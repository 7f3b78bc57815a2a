package dev.toolgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Tool;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The listener a host lists in its own {@code META-INF/services}: found by the gate, recording into the global registry. */
class GlobalRegistryListenerTest {

    record Note(String text) {
    }

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void removeRegistry() {
        Metrics.removeRegistry(meters);
        Metrics.globalRegistry.clear();
        meters.close();
    }

    private static Toolgate gate(ClassLoader loader) {
        return Toolgate.builder().classLoader(loader).discoverTools(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO)
                .tools("notes", Tool.builder("read", Note.class).description("Reads a note").effect(Effect.READ)
                        .execute((in, ctx) -> "note " + in.text()).build())
                .build();
    }

    @Test
    void aHostThatListsItInMetaInfServicesGetsTheMetersOnTheGlobalRegistry(@TempDir Path dir) throws Exception {
        Metrics.addRegistry(meters);
        Path services = dir.resolve("META-INF/services/dev.toolgate.audit.ToolCallListener");
        Files.createDirectories(services.getParent());
        Files.writeString(services, GlobalRegistryListener.class.getName() + "\n");
        CallContext ctx = CallContext.of(Principal.user("u-1")).withTransport("java");

        try (URLClassLoader host = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
             Toolgate gate = gate(host)) {
            gate.call(ctx, "notes.read", "{\"text\":\"a\"}");
            gate.call(ctx, "notes.read", "{\"text\":\"b\"}");
        }
        assertThat(meters.find(ToolgateObservability.CALLS).tag("tool", "notes.read").tag("status", "executed")
                .tag("transport", "java").counter().count()).isEqualTo(2);
        assertThat(meters.find(ToolgateObservability.CALL_DURATION).timer().count()).isEqualTo(2);
    }

    @Test
    void theModuleDoesNotListItItself() {
        Metrics.addRegistry(meters);
        CallContext ctx = CallContext.of(Principal.user("u-1"));
        try (Toolgate gate = gate(getClass().getClassLoader())) {
            gate.call(ctx, "notes.read", "{\"text\":\"a\"}");
        }
        assertThat(meters.find(ToolgateObservability.CALLS).counter()).as("adding the jar alone records nothing").isNull();
    }
}
