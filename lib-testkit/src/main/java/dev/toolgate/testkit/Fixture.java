package dev.toolgate.testkit;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ToolCallListener;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** One contract test's world: a clock, a store, the notes domain, principals, and gates on that store. */
public final class Fixture implements AutoCloseable {

    public static final String APPROVER_RULE = "toolgate.approvals.manage";

    public final MutableClock clock;
    public final ToolgateStore store;
    public final Notes notes = new Notes();
    public final Principal writer = Principal.user("writer", Notes.READ, Notes.WRITE);
    public final Principal reader = Principal.user("reader", Notes.READ);
    public final Principal admin = Principal.user("admin", Principal.ALL);
    public final Principal approver = Principal.user("approver", Notes.READ, Notes.WRITE, APPROVER_RULE);
    public final Principal service = Principal.service("svc", Principal.ALL);
    private final List<Toolgate> gates = new ArrayList<>();
    private Toolgate gate;

    /** A fixture on {@code store}, whose time is {@code clock}. */
    public Fixture(MutableClock clock, ToolgateStore store) {
        this.clock = clock;
        this.store = store;
    }

    /** The default gate: notes tools, 1000 calls per minute, no sweeper. */
    public Toolgate gate() {
        if (gate == null) {
            gate = gate(b -> b);
        }
        return gate;
    }

    /** A gate on this fixture's store, customized. */
    public Toolgate gate(UnaryOperator<ToolgateBuilder> customize) {
        ToolgateBuilder builder = Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .store(store)
                .provider(notes.provider())
                .budget(ToolBudget.perPrincipal(1000, Duration.ofMinutes(1)))
                .sweepInterval(Duration.ZERO);
        Toolgate built = customize.apply(builder).build();
        gates.add(built);
        return built;
    }

    /** A gate that tells {@code listener} about calls. */
    public Toolgate gateWith(ToolCallListener listener) {
        return gate(b -> b.listener(listener));
    }

    public CallContext ctx(Principal principal) {
        return CallContext.of(principal).withTenant("acme").withSession("session-1");
    }

    public List<CallRecord> records() {
        return store.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT));
    }

    /** Every component of a record as text, except the named ones. */
    public static String fieldsOf(CallRecord record, String... except) {
        StringBuilder out = new StringBuilder();
        for (var component : CallRecord.class.getRecordComponents()) {
            if (java.util.Arrays.asList(except).contains(component.getName())) {
                continue;
            }
            try {
                out.append(component.getName()).append('=').append(component.getAccessor().invoke(record)).append('\n');
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        gates.forEach(Toolgate::close);
    }
}
