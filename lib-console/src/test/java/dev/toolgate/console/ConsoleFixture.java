package dev.toolgate.console;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.GateSettings;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import dev.toolgate.tool.ToolValidationException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * A small incident system behind a real gate (in-memory store unless a builder hook says otherwise),
 * with a console over it and a stateful client that behaves like the page: it keeps the cookie and
 * sends the CSRF token and the page's Origin.
 */
final class ConsoleFixture implements AutoCloseable {

    static final String APPROVER = GateSettings.DEFAULT_APPROVER_RULE;
    static final Principal ALICE = Principal.user("alice", Principal.ALL);
    static final Principal DAVE = Principal.user("dave", APPROVER, "incident.read", "incident.manage", "admin");
    static final Principal CAROL = Principal.user("carol", "incident.read", "incident.manage");
    static final Principal BOB = Principal.user("bob", "incident.read");
    static final Principal REPORTER = Principal.service("reporter", Principal.ALL);
    static final String HOST = "console.test:8766";
    static final String ORIGIN = "http://" + HOST;

    record Incident(int id, String title, String severity) {
    }

    record NewIncident(String title, String severity) {
    }

    record Change(int id, String severity) {
    }

    final List<Incident> incidents = new CopyOnWriteArrayList<>();
    /** Who each secret signs in (tests may revoke or change a person while they are signed in). */
    final Map<String, Principal> people = new ConcurrentHashMap<>();
    final Toolgate gate;
    final ToolgateConsole console;
    /** The tenant people sign in to (null: none). */
    volatile String tenant;
    final MutableClock clock = new MutableClock(Instant.parse("2026-11-27T09:00:00Z"));

    ConsoleFixture() {
        this(b -> { }, c -> { });
    }

    ConsoleFixture(Consumer<ToolgateBuilder> gateSettings, Consumer<ToolgateConsole.Builder> consoleSettings) {
        people.put("alice-secret", ALICE);
        people.put("dave-secret", DAVE);
        people.put("carol-secret", CAROL);
        people.put("bob-secret", BOB);
        people.put("reporter-secret", REPORTER);
        incidents.add(new Incident(1, "Database slow", "low"));
        ToolgateBuilder builder = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .tools("incident", find(), create(), escalate()).tools("admin", purge())
                .program("incident.open", run -> {
                    run.call("incident.find", Map.of());
                    return run.call("incident.create", Map.of("title", "Opened by a run", "severity", "high"));
                });
        gateSettings.accept(builder);
        gate = builder.build();
        ToolgateConsole.Builder console = ToolgateConsole.builder(gate)
                .authenticator(new ConsoleAuthenticator() {
                    @Override
                    public Optional<CallContext> authenticate(ConsoleLogin login) {
                        return people.entrySet().stream()
                                .filter(e -> constantTimeEquals(e.getKey(), login.secret()))
                                .map(Map.Entry::getValue)
                                .filter(p -> login.user().isEmpty() || login.user().equals(p.id()))
                                .findFirst().map(p -> CallContext.of(p).withTenant(tenant));
                    }

                    @Override
                    public Optional<CallContext> current(CallContext signedIn) {
                        return people.values().stream().filter(p -> p.id().equals(signedIn.principal().id()))
                                .findFirst().map(signedIn::withPrincipal);
                    }
                })
                .secureCookie(false)
                .clock(clock);
        consoleSettings.accept(console);
        this.console = console.build();
    }

    private static boolean constantTimeEquals(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** carol's model proposes a new incident; returns the proposal's call id. */
    String carolProposes(String title) {
        return propose(CAROL, "incident.create", "{\"title\":" + Json.write(Json.mapper().getNodeFactory().stringNode(title))
                + ",\"severity\":\"high\"}");
    }

    String propose(Principal who, String tool, String arguments) {
        CallResult result = gate.call(CallContext.of(who).withTenant(tenant).withSession("s-" + who.id()), tool, arguments);
        if (!(result instanceof dev.toolgate.call.Proposal)) {
            throw new AssertionError("expected a proposal: " + result);
        }
        return result.callId();
    }

    Client client() {
        return new Client(this);
    }

    @Override
    public void close() {
        gate.close();
    }

    private Tool<?, ?> find() {
        return Tool.builder("find", NoInput.class).description("List incidents.").effect(Effect.READ)
                .requires("incident.read")
                .execute((NoInput in, ToolContext ctx) -> List.copyOf(incidents)).build();
    }

    private Tool<?, ?> create() {
        return Tool.builder("create", NewIncident.class).description("Open an incident.").effect(Effect.MUTATE)
                .requires("incident.manage")
                .dryRun((NewIncident in, ToolContext ctx) -> {
                    if (!List.of("low", "high").contains(in.severity())) {
                        throw new ToolValidationException("/severity", "must be low or high");
                    }
                    return Preview.<NewIncident>of("Open incident \"" + in.title() + "\" (" + in.severity() + ")");
                })
                .execute((NewIncident in, ToolContext ctx) -> {
                    Incident incident = new Incident(incidents.size() + 1, in.title(), in.severity());
                    incidents.add(incident);
                    return incident;
                })
                .output(Incident.class) // the revert gets the incident it opened
                .revert((in, created, ctx) -> incidents.remove(created))
                .build();
    }

    private Tool<?, ?> escalate() {
        return Tool.builder("escalate", Change.class).description("Change an incident's severity.").effect(Effect.MUTATE)
                .requires("incident.manage")
                .dryRun((Change in, ToolContext ctx) -> {
                    Incident now = incidents.stream().filter(i -> i.id() == in.id()).findFirst()
                            .orElseThrow(() -> new ToolValidationException("/id", "no incident " + in.id()));
                    return Preview.<Change>of("Severity of #" + in.id() + ": " + now.severity() + " -> " + in.severity())
                            .withDiff(Map.of("id", in.id(), "severity", now.severity()),
                                    Map.of("id", in.id(), "severity", in.severity()));
                })
                .execute((Change in, ToolContext ctx) -> {
                    incidents.replaceAll(i -> i.id() == in.id() ? new Incident(i.id(), i.title(), in.severity()) : i);
                    return Map.of("id", in.id(), "severity", in.severity());
                }).build();
    }

    private Tool<?, ?> purge() {
        return Tool.builder("purge", NoInput.class).description("Delete every incident.").effect(Effect.DESTRUCTIVE)
                .requires("admin")
                .dryRun((NoInput in, ToolContext ctx) -> Preview.<NoInput>of("Delete all " + incidents.size() + " incidents"))
                .execute((NoInput in, ToolContext ctx) -> {
                    int n = incidents.size();
                    incidents.clear();
                    return n;
                }).build();
    }

    /** A stateful client, as the page is. */
    static class Client {
        private final ConsoleFixture fixture;
        String cookie;
        String csrf;
        String origin = ORIGIN;
        String remote = "10.0.0.1";

        Client(ConsoleFixture fixture) {
            this.fixture = fixture;
        }

        ConsoleResponse login(String user, String secret) {
            ConsoleResponse r = post("/api/login", "{\"user\":\"" + user + "\",\"secret\":\"" + secret + "\"}");
            if (r.status() == 200) {
                String setCookie = r.header("Set-Cookie").orElseThrow();
                cookie = setCookie.substring(0, setCookie.indexOf(';'));
                csrf = json(r).get("csrf").asString();
            }
            return r;
        }

        Client signedIn(String user) {
            ConsoleResponse r = login(user, user + "-secret");
            if (r.status() != 200) {
                throw new AssertionError("sign-in of " + user + " failed: " + r.bodyText());
            }
            return this;
        }

        ConsoleResponse get(String pathAndQuery) {
            return send(request("GET", pathAndQuery, null).build());
        }

        ConsoleResponse post(String path, String json) {
            return send(request("POST", path, json).build());
        }

        ConsoleRequest.Builder request(String method, String pathAndQuery, String json) {
            int q = pathAndQuery.indexOf('?');
            ConsoleRequest.Builder b = ConsoleRequest.builder(method, "/console", q < 0 ? pathAndQuery : pathAndQuery.substring(0, q))
                    .query(q < 0 ? null : pathAndQuery.substring(q + 1))
                    .header("Host", HOST)
                    .remoteAddress(remote);
            if (cookie != null) {
                b.header("Cookie", cookie);
            }
            if (json != null) {
                b.header("Content-Type", "application/json").body(json.getBytes(StandardCharsets.UTF_8));
                if (origin != null) {
                    b.header("Origin", origin);
                }
                if (csrf != null) {
                    b.header(Guard.CSRF_HEADER, csrf);
                }
            }
            return b;
        }

        ConsoleResponse send(ConsoleRequest request) {
            return fixture.console.handle(request);
        }
    }

    static JsonNode json(ConsoleResponse r) {
        return Json.parse(r.bodyText());
    }

    /** A clock tests move by hand. */
    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
