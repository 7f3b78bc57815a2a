package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Function;

/**
 * The OpenAPI part of the sources section: {@code openapi:statuspage}, the status page API described by
 * {@code openapi/statuspage.yaml} and served by {@link StatusPageApi}. bob reads a component with one
 * real HTTP GET; carol's model posts a status update, which is proposed with the method and the URL
 * and reaches the API only when carol applies it, as exactly one request.
 */
final class StatusPageTour {

    static final String SOURCE = "openapi:statuspage";

    private final Toolgate gate;
    private final PrintStream out;
    private final Function<Principal, CallContext> as;
    private final StatusPageApi api;

    StatusPageTour(Toolgate gate, PrintStream out, Function<Principal, CallContext> as, StatusPageApi api) {
        this.gate = gate;
        this.out = out;
        this.as = as;
        this.api = api;
    }

    void run() {
        reconfirmWhatDrifted();
        Executed component = (Executed) gate.call(as.apply(DemoPrincipals.BOB), SOURCE + ".getComponent",
                "{\"path\":{\"componentId\":\"db\"}}");
        out.println("bob reads " + SOURCE + ".getComponent (a READ: one real HTTP GET, with the host's token) -> "
                + Json.write(component.result()));

        CallContext carol = as.apply(DemoPrincipals.CAROL);
        int before = api.received().size();
        Proposal proposal = (Proposal) gate.call(carol, SOURCE + ".postStatusUpdate", "{\"body\":{\"componentId\":\"db\","
                + "\"status\":\"major_outage\",\"message\":\"The primary database refuses connections; failover in progress.\"}}");
        out.println("carol's model posts a status update to " + SOURCE + " (proposed, nothing sent yet):");
        out.println("  summary: " + proposal.summary());
        out.println("  payload: " + Json.write(proposal.payload()));
        out.println("  the status page API received " + (api.received().size() - before) + " requests since the proposal");

        Applied applied = gate.apply(carol, proposal.token());
        out.println("carol applies the token -> " + Json.write(applied.result()));
        List<StatusPageApi.Received> sent = api.received().subList(before, api.received().size());
        out.println("  the status page API received exactly " + sent.size() + " request" + (sent.size() == 1 ? "" : "s")
                + ": " + sent.stream().map(r -> r + (r.authorized() ? " (bearer token accepted)" : " (unauthorized)")).toList());
    }

    /**
     * With a store kept from a run of an older demo whose document or contract differed, the statuspage
     * tools have drifted since their last review and even their READs wait for approval: alice, an
     * operator, re-confirms them, as drift review asks. A fresh store never sees this.
     */
    private void reconfirmWhatDrifted() {
        CallContext alice = as.apply(DemoPrincipals.ALICE);
        List<String> drifted = gate.catalog(alice).stream().filter(e -> e.mode().drifted())
                .map(e -> e.descriptor().name()).filter(name -> name.startsWith(SOURCE + ".")).toList();
        if (!drifted.isEmpty()) {
            out.println("(" + drifted + " changed since an earlier run reviewed them; alice re-confirms them)");
            drifted.forEach(tool -> gate.confirmSchema(alice, tool));
        }
    }
}
