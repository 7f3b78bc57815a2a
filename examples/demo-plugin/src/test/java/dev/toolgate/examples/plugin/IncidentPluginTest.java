package dev.toolgate.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.ToolValidationException;
import org.junit.jupiter.api.Test;

class IncidentPluginTest {

    private final DemoData data = new DemoData();
    private final Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
            .provider(new IncidentPlugin(data)).build();
    private final CallContext carol = CallContext.of(Principal.user("carol", IncidentPlugin.READ, IncidentPlugin.MANAGE));

    @Test
    void createNeedsAKnownSystemIdAndPreviewsWithoutCreating() {
        assertThatThrownBy(() -> gate.call(carol, "incident.create", "{\"systemId\":\"Database\",\"title\":\"DB down\",\"severity\":\"HIGH\"}"))
                .isInstanceOfSatisfying(ToolValidationException.class,
                        e -> assertThat(e.issues()).singleElement().satisfies(i -> assertThat(i.path()).isEqualTo("/systemId")));
        Proposal proposal = (Proposal) gate.call(carol, "incident.create", "{\"systemId\":\"db\",\"title\":\"DB down\",\"severity\":\"HIGH\"}");
        assertThat(proposal.summary()).isEqualTo("Open HIGH incident \"DB down\" on Primary database");
        assertThat(data.incidents()).hasSize(1);
        gate.apply(carol, proposal.token());
        assertThat(data.incidents()).hasSize(2);
    }

    @Test
    void updateShowsABeforeAfterDiffAndRefusesANoOp() {
        String id = data.incidents().get(0).id();
        Proposal proposal = (Proposal) gate.call(carol, "incident.update", "{\"id\":\"" + id + "\",\"status\":\"RESOLVED\"}");
        assertThat(proposal.diff()).singleElement().satisfies(c -> {
            assertThat(c.path()).isEqualTo("/status");
            assertThat(c.before().asString()).isEqualTo("OPEN");
            assertThat(c.after().asString()).isEqualTo("RESOLVED");
        });
        assertThatThrownBy(() -> gate.call(carol, "incident.update", "{\"id\":\"" + id + "\",\"status\":\"OPEN\"}"))
                .isInstanceOf(ToolValidationException.class).hasMessageContaining("changes nothing");
    }

    @Test
    void deleteNamesExactlyWhatItRemoves() {
        String id = data.incidents().get(0).id();
        Proposal proposal = (Proposal) gate.call(carol, "incident.delete", "{\"id\":\"" + id + "\"}");
        assertThat(proposal.summary()).startsWith("Delete " + id + " \"Elevated 5xx rate on /orders\"");
        gate.apply(carol, proposal.token());
        assertThat(data.incident(id)).isEmpty();
    }
}
