package dev.toolgate.jdbc;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.testkit.Notes;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;

/** A host instance for tests: a gate with the notes tools on a store, and the notes it mutates. */
record Hosts(Toolgate gate, Notes notes) implements AutoCloseable {

    static final Principal WRITER = Principal.user("writer", Notes.READ, Notes.WRITE);
    static final Principal READER = Principal.user("reader", Notes.READ);

    /** A host with a generous budget, no sweeper, 10-minute proposals. */
    static Hosts on(ToolgateStore store) {
        return on(store, b -> b);
    }

    static Hosts on(ToolgateStore store, UnaryOperator<ToolgateBuilder> customize) {
        return on(store, new Notes(), customize);
    }

    /** A host whose tools change {@code notes}: the application's data, shared by its instances. */
    static Hosts on(ToolgateStore store, Notes notes, UnaryOperator<ToolgateBuilder> customize) {
        ToolgateBuilder builder = Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .store(store)
                .provider(notes.provider())
                .budget(ToolBudget.perPrincipal(1_000_000, Duration.ofMinutes(1)))
                .sweepInterval(Duration.ZERO);
        return new Hosts(customize.apply(builder).build(), notes);
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withTenant("acme").withSession("s-" + principal.id());
    }

    @Override
    public void close() {
        gate.close();
    }

    /**
     * The most admissions inside any window of length {@code window} (a half-open interval
     * {@code (t - window, t]}, as the budget counts), over {@code admissions}.
     */
    static int maxInAnyWindow(List<Instant> admissions, Duration window) {
        List<Instant> sorted = new ArrayList<>(admissions);
        Collections.sort(sorted);
        int max = 0;
        int start = 0;
        for (int end = 0; end < sorted.size(); end++) {
            Instant windowStart = sorted.get(end).minus(window);
            while (!sorted.get(start).isAfter(windowStart)) {
                start++;
            }
            max = Math.max(max, end - start + 1);
        }
        return max;
    }
}
