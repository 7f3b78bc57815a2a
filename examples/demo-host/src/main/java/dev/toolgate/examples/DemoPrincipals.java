package dev.toolgate.examples;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.call.GateSettings;
import dev.toolgate.spi.InMemoryStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The demo's principals, and the store options the demo programs share. */
public final class DemoPrincipals {

    /** Admin: holds every rule ({@code *}), so she is also the operator who approves. */
    public static final Principal ALICE = Principal.user("alice", Principal.ALL);
    /** Reader: read rules only. */
    public static final Principal BOB = Principal.user("bob", "incident.incident.read", "catalog.system.read");
    /** Incident manager: read and manage. */
    public static final Principal CAROL = Principal.user("carol", "incident.incident.read", "catalog.system.read",
            "incident.incident.manage");
    /** A backend service: never offered a tool, whatever it holds. */
    public static final Principal REPORTER = Principal.service("reporter", Principal.ALL);

    private static final Map<String, Principal> BY_NAME = Map.of("alice", ALICE, "bob", BOB, "carol", CAROL, "reporter", REPORTER);

    private static String storeDescription = "discovered";

    private DemoPrincipals() {
    }

    /** Every demo principal. */
    public static List<Principal> all() {
        return List.of(ALICE, BOB, CAROL, REPORTER);
    }

    /** A demo principal by name. */
    public static Optional<Principal> named(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /** Operators need this rule; alice holds it through {@code *}. */
    public static String approverRule() {
        return GateSettings.DEFAULT_APPROVER_RULE;
    }

    /**
     * Applies {@code --db <jdbc url>|memory} from {@code args} to a builder. Without it, the store is
     * discovered on the classpath: toolgate-jdbc's embedded H2 file in {@code ~/.toolgate}.
     */
    public static ToolgateBuilder configure(ToolgateBuilder builder, String[] args) {
        Optional<String> db = option(args, "--db");
        if (db.isEmpty()) {
            storeDescription = "discovered (H2 file ~/.toolgate/toolgate unless TOOLGATE_JDBC_URL is set)";
        } else if (db.get().equals("memory")) {
            storeDescription = "in-memory";
            builder.store(new InMemoryStore());
        } else {
            storeDescription = db.get().replaceAll("password=[^&;]*", "password=***");
            builder.storeSetting("jdbc.url", db.get());
        }
        return builder;
    }

    /** What {@link #configure} chose, for printing. */
    public static String storeDescription() {
        return storeDescription;
    }

    /** The value after {@code name} in {@code args}. */
    public static Optional<String> option(String[] args, String name) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return Optional.of(args[i + 1]);
            }
        }
        return Optional.empty();
    }
}
