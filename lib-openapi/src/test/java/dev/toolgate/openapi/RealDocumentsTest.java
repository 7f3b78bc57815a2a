package dev.toolgate.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.json.Json;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.source.ToolSource;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ValidationIssue;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The real public OpenAPI documents of {@code src/test/resources/openapi} (see SOURCES.md there), each
 * listed through the gate against a local {@link ApiServer}. Every operation of a document is either a
 * tool or left out with a reason; names, effects and contracts are checked against the document read
 * independently here, every input schema compiled by the gate accepts a generated minimal argument
 * object, and every READ tool is called and reaches the path its template names.
 *
 * <p>Per document (tools + left out = operations; tools by effect):
 * <pre>
 * document                    ops  tools  left out  READ  MUTATE  DESTRUCTIVE
 * petstore-3.0.yaml            19     19         0     8       8            3
 * petstore-3.1.yaml             6      4         2     3       0            1   (updatePet, addPet: $ref null)
 * petstore-expanded-3.0.yaml    4      4         0     2       1            1
 * callback-example-3.0.yaml     1      1         0     0       1            0   (post_streams, derived name)
 * tictactoe-3.1.yaml            3      3         0     2       1            0
 * discord-3.1.json            242    239         3   103      97           39   (3 required multipart bodies)
 * box-3.0.json                296    282        14   127     111           44   (14 on servers the host does not allow)
 * </pre>
 * With the four Box servers allowed as well, all 296 Box operations are tools.
 */
class RealDocumentsTest {

    static final Principal CAROL = Principal.user("carol", "docs.use");
    static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Pattern NOT_NAME = Pattern.compile("[^A-Za-z0-9_.-]");

    /**
     * One document: its file, the source name, the base path the host allows on the local server, the
     * operations per method as SOURCES.md states them, and its tools by effect (the figures above).
     */
    record Doc(String file, String source, String basePath, Map<String, Integer> byMethod, int read, int mutate,
               int destructive) {

        int operations() {
            return byMethod.values().stream().mapToInt(Integer::intValue).sum();
        }

        @Override
        public String toString() {
            return file;
        }
    }

    static final Doc PETSTORE_30 = new Doc("petstore-3.0.yaml", "petstore30", "/api/v3",
            Map.of("GET", 8, "POST", 6, "PUT", 2, "DELETE", 3), 8, 8, 3);
    static final Doc PETSTORE_31 = new Doc("petstore-3.1.yaml", "petstore31", "/api/v3",
            Map.of("GET", 3, "POST", 1, "PUT", 1, "DELETE", 1), 3, 0, 1);
    static final Doc EXPANDED = new Doc("petstore-expanded-3.0.yaml", "expanded", "/api",
            Map.of("GET", 2, "POST", 1, "DELETE", 1), 2, 1, 1);
    static final Doc CALLBACKS = new Doc("callback-example-3.0.yaml", "callbacks", "/api", Map.of("POST", 1), 0, 1, 0);
    static final Doc TICTACTOE = new Doc("tictactoe-3.1.yaml", "tictactoe", "/api", Map.of("GET", 2, "PUT", 1), 2, 1, 0);
    static final Doc DISCORD = new Doc("discord-3.1.json", "discord", "/api/v10",
            Map.of("GET", 103, "POST", 43, "PUT", 24, "PATCH", 33, "DELETE", 39), 103, 97, 39);
    static final Doc BOX = new Doc("box-3.0.json", "box", "/2.0",
            Map.of("GET", 129, "POST", 73, "PUT", 44, "PATCH", 3, "DELETE", 45, "OPTIONS", 2), 127, 111, 44);

    static Stream<Doc> documents() {
        return Stream.of(PETSTORE_30, PETSTORE_31, EXPANDED, CALLBACKS, TICTACTOE, DISCORD, BOX);
    }

    /** The Box operations with servers of their own: name, path key, method, the server they name. */
    static final List<String[]> BOX_OWN_SERVERS = List.of(
            new String[] {"get_authorize", "/authorize", "get", "https://account.box.com/api/oauth2"},
            new String[] {"post_oauth2_token", "/oauth2/token", "post", "https://api.box.com"},
            new String[] {"post_oauth2_token_refresh", "/oauth2/token#refresh", "post", "https://api.box.com"},
            new String[] {"post_oauth2_revoke", "/oauth2/revoke", "post", "https://api.box.com"},
            new String[] {"post_files_id_content", "/files/{file_id}/content", "post", "https://upload.box.com/api/2.0"},
            new String[] {"post_files_content", "/files/content", "post", "https://upload.box.com/api/2.0"},
            new String[] {"post_files_upload_sessions", "/files/upload_sessions", "post", "https://upload.box.com/api/2.0"},
            new String[] {"post_files_id_upload_sessions", "/files/{file_id}/upload_sessions", "post",
                    "https://upload.box.com/api/2.0"},
            // these five name https://{box-upload-server}/api/2.0, whose variable defaults to upload.box.com
            new String[] {"get_files_upload_sessions_id", "/files/upload_sessions/{upload_session_id}", "get",
                    "https://upload.box.com/api/2.0"},
            new String[] {"put_files_upload_sessions_id", "/files/upload_sessions/{upload_session_id}", "put",
                    "https://upload.box.com/api/2.0"},
            new String[] {"delete_files_upload_sessions_id", "/files/upload_sessions/{upload_session_id}", "delete",
                    "https://upload.box.com/api/2.0"},
            new String[] {"get_files_upload_sessions_id_parts", "/files/upload_sessions/{upload_session_id}/parts", "get",
                    "https://upload.box.com/api/2.0"},
            new String[] {"post_files_upload_sessions_id_commit", "/files/upload_sessions/{upload_session_id}/commit", "post",
                    "https://upload.box.com/api/2.0"},
            new String[] {"get_zip_downloads_id_content", "/zip_downloads/{zip_download_id}/content", "get",
                    "https://dl.boxcloud.com/2.0"});

    private final List<AutoCloseable> closing = new ArrayList<>();
    private ApiServer api;

    @BeforeEach
    void startApi() throws IOException {
        api = ApiServer.start();
        closing.add(api);
        for (String method : List.of("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE")) {
            api.on(method, ".*", s -> ApiServer.Answer.json(200, "{}"));
        }
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    // ------------------------------------------------------------------------------------------ set-up

    URI server(Doc doc) {
        return api.url(doc.basePath());
    }

    OpenApiSource.Builder source(Doc doc) {
        return OpenApiSource.builder(doc.source()).documentResource("openapi/" + doc.file()).server(server(doc))
                .requires("docs.use");
    }

    Toolgate gate(ToolSource... sources) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of()))
                .budget(ToolBudget.unlimited()) // every READ of a document is called
                // generous: the listing of a 1.8 MB document must not be cut off on a slow machine
                .sourceTimings(Duration.ofMinutes(5), Duration.ofSeconds(60), Duration.ofSeconds(10));
        for (ToolSource source : sources) {
            builder.source(source);
        }
        Toolgate gate = builder.build();
        closing.add(gate);
        return gate;
    }

    static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("s-1").withTenant("acme");
    }

    /** The registered tools of the gate's only source by local name (the operation's tool name). */
    static Map<String, RegisteredTool> tools(Toolgate gate, Doc doc) {
        Map<String, RegisteredTool> tools = new TreeMap<>();
        String prefix = "openapi:" + doc.source() + ".";
        for (RegisteredTool tool : gate.registry().tools()) {
            assertThat(tool.name()).startsWith(prefix);
            tools.put(tool.name().substring(prefix.length()), tool);
        }
        return tools;
    }

    /** What the source left out, by tool name. */
    static Map<String, String> skipped(Toolgate gate) {
        Map<String, String> skipped = new TreeMap<>();
        for (String entry : gate.listSources().get(0).skipped()) {
            int colon = entry.indexOf(": ");
            assertThat(colon).as("'%s' is 'name: reason'", entry).isPositive();
            assertThat(skipped.put(entry.substring(0, colon), entry.substring(colon + 2))).as("left out once: " + entry).isNull();
        }
        return skipped;
    }

    // ------------------------------------------------------------------------------------------ the document, read here

    /** One operation as this test reads it from the document, independently of the source. */
    record Op(String name, String method, String pathKey, String template, Effect effect, JsonNode item, JsonNode node) {
    }

    static JsonNode read(Doc doc) throws IOException {
        byte[] bytes = PetstoreSourceTest.resource("openapi/" + doc.file());
        return doc.file().endsWith(".json") ? JsonMapper.builder().build().readTree(bytes)
                : YAMLMapper.builder().build().readTree(bytes);
    }

    /** Every operation directly under {@code paths} (callbacks and webhooks are not operations of the API). */
    static List<Op> operations(JsonNode root) {
        List<Op> ops = new ArrayList<>();
        for (var path : root.path("paths").properties()) {
            JsonNode item = local(root, path.getValue());
            for (var entry : item.properties()) {
                String method = entry.getKey();
                if (!METHODS.contains(method)) {
                    continue;
                }
                String pathKey = path.getKey();
                int fragment = pathKey.indexOf('#');
                String template = fragment < 0 ? pathKey : pathKey.substring(0, fragment);
                ops.add(new Op(expectedName(entry.getValue(), method, pathKey), method.toUpperCase(Locale.ROOT), pathKey,
                        template, methodRule(method), item, entry.getValue()));
            }
        }
        return ops;
    }

    /** The sanitized operationId, or {@code <method>_<segments>} when there is none. */
    static String expectedName(JsonNode operation, String method, String pathKey) {
        String id = operation.path("operationId").asString("").strip();
        if (!id.isEmpty()) {
            return NOT_NAME.matcher(id).replaceAll("_");
        }
        StringBuilder derived = new StringBuilder(method);
        for (String segment : pathKey.split("/")) {
            if (!segment.isEmpty()) {
                derived.append('_').append(segment.replace("{", "").replace("}", ""));
            }
        }
        return NOT_NAME.matcher(derived).replaceAll("_");
    }

    static Effect methodRule(String method) {
        return switch (method) {
            case "get", "head", "options" -> Effect.READ;
            case "post", "put", "patch", "trace" -> Effect.MUTATE;
            case "delete" -> Effect.DESTRUCTIVE;
            default -> throw new IllegalArgumentException(method);
        };
    }

    /** The node itself, or what its local {@code $ref} points at. */
    static JsonNode local(JsonNode root, JsonNode node) {
        for (int hop = 0; node != null && node.isObject() && node.path("$ref").isString(); hop++) {
            assertThat(hop).isLessThan(10);
            node = root.at(node.path("$ref").asString().substring(1));
        }
        return node;
    }

    static String pointer(String... tokens) {
        StringBuilder out = new StringBuilder();
        for (String token : tokens) {
            out.append('/').append(token.replace("~", "~0").replace("/", "~1"));
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------------------------ every document

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void everyOperationIsAToolWithTheEffectOfItsMethodOrLeftOutWithAReason(Doc doc) throws IOException {
        List<Op> ops = operations(read(doc));
        Map<String, Integer> byMethod = new TreeMap<>();
        ops.forEach(op -> byMethod.merge(op.method(), 1, Integer::sum));
        assertThat(byMethod).as("the document as SOURCES.md counts it").isEqualTo(new TreeMap<>(doc.byMethod()));

        Toolgate gate = gate(source(doc).build());
        SourceStatus status = gate.listSources().get(0);
        assertThat(status.state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(status.error()).isNull();

        Map<String, RegisteredTool> tools = tools(gate, doc);
        Map<String, String> skipped = skipped(gate);
        assertThat(status.tools()).isEqualTo(tools.size());
        assertThat(tools.size() + skipped.size()).isEqualTo(ops.size()).isEqualTo(doc.operations());
        assertThat(Collections.disjoint(tools.keySet(), skipped.keySet())).as("a tool is not also left out").isTrue();
        Set<String> expectedNames = new TreeSet<>();
        ops.forEach(op -> assertThat(expectedNames.add(op.name())).as("one operation per name: " + op.name()).isTrue());
        Set<String> listed = new TreeSet<>(tools.keySet());
        listed.addAll(skipped.keySet());
        assertThat(listed).as("each operation is a tool or left out, under its sanitized operationId")
                .isEqualTo(expectedNames);
        assertThat(skipped).isEqualTo(expectedSkips(doc));
        Map<Effect, Long> byEffect = new TreeMap<>();
        tools.values().forEach(tool -> byEffect.merge(tool.effect(), 1L, Long::sum));
        assertThat(new long[] {byEffect.getOrDefault(Effect.READ, 0L), byEffect.getOrDefault(Effect.MUTATE, 0L),
                byEffect.getOrDefault(Effect.DESTRUCTIVE, 0L)}).as("tools by effect: READ, MUTATE, DESTRUCTIVE")
                .containsExactly(doc.read(), doc.mutate(), doc.destructive());

        for (Op op : ops) {
            RegisteredTool tool = tools.get(op.name());
            if (tool == null) {
                continue;
            }
            assertThat(tool.effect()).as(op.method() + " " + op.pathKey()).isEqualTo(op.effect());
            assertThat(tool.tool().contract().orElseThrow()).as("what drift review fingerprints besides the schema")
                    .startsWith(op.method() + " ").endsWith(op.template() + " " + op.effect().wireName());
            assertThat(tool.descriptor().description()).endsWith("Calls " + op.method() + " " + op.template() + ".");
            assertThat(tool.requiredAccessRules()).containsExactly("docs.use");
        }
    }

    /** Exactly what each document leaves out, and why, as an operator reads it in listSources(). */
    Map<String, String> expectedSkips(Doc doc) {
        Map<String, String> expected = new TreeMap<>();
        if (doc == PETSTORE_31) {
            // `$ref: #/components/schemas/petdetails` unquoted: YAML reads everything from # on as a comment
            String reason = "the $ref is null, not a reference: in YAML an unquoted '$ref: #/...' reads as a comment; "
                    + "quote it ('$ref: \"#/components/...\"') (at /components/schemas/Pet/properties/petDetails)";
            expected.put("updatePet", reason);
            expected.put("addPet", reason);
        } else if (doc == DISCORD) {
            for (String[] op : List.of(
                    new String[] {"upload_application_attachment", "/applications/{application_id}/attachment", "post"},
                    new String[] {"create_guild_sticker", "/guilds/{guild_id}/stickers", "post"},
                    new String[] {"update_invite_target_users", "/invites/{code}/target-users", "put"})) {
                expected.put(op[0], "the required request body is only offered as multipart/form-data; only JSON bodies "
                        + "are sent (at " + pointer("paths", op[1], op[2], "requestBody") + ")");
            }
        } else if (doc == BOX) {
            for (String[] op : BOX_OWN_SERVERS) {
                expected.put(op[0], "the operation's own servers [" + op[3] + "] are not among the servers the host allows ["
                        + server(doc) + "]; allow one with OpenApiSource.Builder.server(URI) to offer it (at "
                        + pointer("paths", op[1], op[2], "servers") + ")");
            }
        }
        return expected;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void everyInputSchemaCompilesAndAcceptsAMinimalArgumentObject(Doc doc) {
        Toolgate gate = gate(source(doc).build());
        Map<String, RegisteredTool> tools = tools(gate, doc);
        assertThat(tools).isNotEmpty();
        Map<String, String> failures = new TreeMap<>();
        for (var entry : tools.entrySet()) {
            JsonNode schema = entry.getValue().descriptor().inputSchema();
            assertThat(schema.path("type").asString()).isEqualTo("object");
            assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
            JsonNode arguments;
            try {
                arguments = Minimal.of(schema);
            } catch (RuntimeException e) {
                failures.put(entry.getKey(), "no minimal value: " + e.getMessage());
                continue;
            }
            List<ValidationIssue> issues = entry.getValue().validate(arguments);
            if (!issues.isEmpty()) {
                failures.put(entry.getKey(), arguments + " -> " + issues);
            }
            // and what the schema refuses: a member the operation does not have
            ObjectNode extra = ((ObjectNode) arguments).deepCopy().put("cookie", "c=1");
            assertThat(entry.getValue().validate(extra)).as(entry.getKey()).isNotEmpty();
        }
        assertThat(failures).as("tools whose minimal arguments do not validate").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void everyReadRunsAndReachesThePathItsTemplateNames(Doc doc) throws IOException {
        Toolgate gate = gate(source(doc).build());
        Map<String, RegisteredTool> tools = tools(gate, doc);
        int reads = 0;
        for (Op op : operations(read(doc))) {
            RegisteredTool tool = tools.get(op.name());
            if (tool == null || tool.effect() != Effect.READ) {
                continue;
            }
            JsonNode arguments = Minimal.of(tool.descriptor().inputSchema());
            api.clear();
            CallResult result = gate.call(ctx(CAROL), tool.name(), arguments);
            assertThat(result).as(op.name()).isInstanceOf(Executed.class);
            assertThat(((Executed) result).result().path("status").asInt()).isEqualTo(200);
            assertThat(api.requests()).as(op.name()).hasSize(1);
            ApiServer.Seen seen = api.requests().get(0);
            assertThat(seen.method()).isEqualTo(op.method());
            assertThat(seen.rawPath()).as(op.name() + " " + arguments)
                    .isEqualTo(doc.basePath() + fill(op.template(), arguments.path("path")));
            reads++;
        }
        long expected = tools.values().stream().filter(t -> t.effect() == Effect.READ).count();
        assertThat(reads).isEqualTo(expected);
    }

    /** The template with each {@code {name}} replaced by the argument's value, percent-encoded. */
    static String fill(String template, JsonNode values) {
        StringBuilder out = new StringBuilder();
        var matcher = Pattern.compile("\\{([^{}]*)}").matcher(template);
        int last = 0;
        while (matcher.find()) {
            out.append(template, last, matcher.start());
            JsonNode value = values.get(matcher.group(1));
            assertThat(value).as("a value for {" + matcher.group(1) + "}").isNotNull();
            assertThat(value.isValueNode()).isTrue();
            out.append(unreservedOnly(value.asString()));
            last = matcher.end();
        }
        return out.append(template.substring(last)).toString();
    }

    static String unreservedOnly(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void theDefsAreExactlyTheComponentSchemasTheOperationReaches(Doc doc) throws IOException {
        JsonNode root = read(doc);
        boolean v30 = root.path("openapi").asString().startsWith("3.0.");
        Toolgate gate = gate(source(doc).build());
        Map<String, RegisteredTool> tools = tools(gate, doc);
        int withDefs = 0;
        for (Op op : operations(root)) {
            RegisteredTool tool = tools.get(op.name());
            if (tool == null) {
                continue;
            }
            Set<String> reached = reachableComponents(root, op, v30);
            JsonNode defs = tool.descriptor().inputSchema().path("$defs");
            assertThat(new TreeSet<>(defs.propertyNames())).as(op.name()).isEqualTo(reached);
            if (!reached.isEmpty()) {
                withDefs++;
            }
        }
        if (doc == DISCORD || doc == BOX || doc == PETSTORE_30) {
            assertThat(withDefs).isPositive();
        }
    }

    /**
     * The component schemas an operation's parameters and JSON request body reach through
     * {@code #/components/schemas/...} references, transitively; read here from the document.
     */
    static Set<String> reachableComponents(JsonNode root, Op op, boolean v30) {
        List<JsonNode> starts = new ArrayList<>();
        Map<String, JsonNode> parameters = new LinkedHashMap<>();
        for (JsonNode list : List.of(op.item().path("parameters"), op.node().path("parameters"))) {
            for (JsonNode raw : list) {
                JsonNode parameter = local(root, raw);
                String in = parameter.path("in").asString();
                String name = parameter.path("name").asString();
                parameters.put(in + ":" + (in.equals("header") ? name.toLowerCase(Locale.ROOT) : name), parameter);
            }
        }
        for (JsonNode parameter : parameters.values()) {
            if (parameter.path("in").asString().equals("path")
                    && !op.template().contains("{" + parameter.path("name").asString() + "}")) {
                continue;
            }
            if (parameter.has("schema")) {
                starts.add(parameter.get("schema"));
            } else {
                parameter.path("content").values().stream().findFirst().ifPresent(media -> starts.add(media.path("schema")));
            }
        }
        JsonNode body = local(root, op.node().path("requestBody"));
        if (body != null) {
            for (var media : body.path("content").properties()) {
                String type = media.getKey().toLowerCase(Locale.ROOT);
                if (type.equals("application/json") || type.endsWith("+json") || type.equals("*/*")) {
                    starts.add(media.getValue().path("schema"));
                    break;
                }
            }
        }
        Set<String> names = new TreeSet<>();
        Set<String> followed = new HashSet<>();
        Deque<JsonNode> todo = new ArrayDeque<>(starts);
        while (!todo.isEmpty()) {
            JsonNode node = todo.pop();
            if (node.isArray()) {
                node.forEach(todo::push);
                continue;
            }
            if (!node.isObject()) {
                continue;
            }
            if (node.path("$ref").isString()) {
                String ref = node.path("$ref").asString();
                if (ref.startsWith("#/components/schemas/")) {
                    String name = ref.substring("#/components/schemas/".length()).split("/")[0];
                    if (names.add(name)) {
                        todo.push(root.path("components").path("schemas").path(name));
                    }
                } else if (ref.startsWith("#/") && followed.add(ref)) {
                    todo.push(root.at(ref.substring(1)));
                }
                if (v30) {
                    continue; // OpenAPI 3.0: a reference's siblings are ignored
                }
            }
            for (var field : node.properties()) {
                String key = field.getKey();
                if (key.startsWith("x-") || Set.of("$ref", "example", "examples", "enum", "const", "default",
                        "discriminator", "externalDocs", "xml").contains(key)) {
                    continue;
                }
                todo.push(field.getValue());
            }
        }
        return names;
    }

    // ------------------------------------------------------------------------------------------ the oddities

    @Test
    void petstore31TheBrokenReferencesLeaveOutTheTwoOperationsWithAPetBodyAndSayWhy() throws IOException {
        String original = new String(PetstoreSourceTest.resource("openapi/petstore-3.1.yaml"), StandardCharsets.UTF_8);
        String unquoted = "$ref: #/components/schemas/petdetails";
        String relative = "$ref: /components/schemas/petdetails#pet_details_id";
        assertThat(original).contains(unquoted, relative);

        // quoted, the first reference names a component that does not exist (it is PetDetails, its $id is petdetails)
        Map<String, String> quoted = skippedOf(original.replace(unquoted, "$ref: '#/components/schemas/petdetails'"));
        assertThat(quoted).containsOnlyKeys("updatePet", "addPet").containsEntry("addPet",
                "the reference '#/components/schemas/petdetails' points at nothing (at /components/schemas/Pet/properties/petDetails)");

        // named right, the second is a relative URI meant for the $id and $anchor of PetDetails: not a local pointer
        Map<String, String> named = skippedOf(original.replace(unquoted, "$ref: '#/components/schemas/PetDetails'"));
        assertThat(named).containsOnlyKeys("updatePet", "addPet").containsEntry("addPet",
                "the reference '/components/schemas/petdetails#pet_details_id' is not a local '#/...' pointer; references "
                        + "to other files, URLs or $id/$anchor names are not followed (bundle the document into one file "
                        + "with '#/components/...' references) (at /components/schemas/Pet/properties/petDetailsId)");

        // both made local pointers: all six operations are tools, and PetDetails ($schema, $id, $vocabulary,
        // $anchor) becomes a $def the gate compiles
        String fixed = original.replace(unquoted, "$ref: '#/components/schemas/PetDetails'")
                .replace(relative, "$ref: '#/components/schemas/PetDetails/properties/id'");
        Toolgate gate = gate(OpenApiSource.builder("petstore31").documentText(fixed).server(server(PETSTORE_31)).build());
        assertThat(gate.listSources().get(0).skipped()).isEmpty();
        RegisteredTool addPet = gate.registry().find("openapi:petstore31.addPet").orElseThrow();
        assertThat(addPet.descriptor().inputSchema().path("$defs").propertyNames()).contains("Pet", "PetDetails");
        JsonNode pet = Json.parse("{\"body\":{\"id\":10,\"name\":\"doggie\",\"photoUrls\":[],"
                + "\"petDetails\":{\"id\":1},\"petDetailsId\":1,\"availableInstances\":5}}");
        assertThat(addPet.validate(pet)).isEmpty();
        // 3.1 keeps a $ref's siblings: the request body's `required: [id]` beside `$ref: Pet` holds
        assertThat(addPet.validate(Json.parse("{\"body\":{\"name\":\"doggie\",\"photoUrls\":[]}}")))
                .extracting(ValidationIssue::toString).singleElement().asString().contains("/body/id");
        JsonNode outOfRange = Json.parse("{\"body\":{\"id\":10,\"name\":\"doggie\",\"photoUrls\":[],"
                + "\"availableInstances\":10}}");
        assertThat(addPet.validate(outOfRange)).as("3.1's numeric exclusiveMaximum: 10 holds").isNotEmpty();
        assertThat(addPet.validate(Json.parse("{\"body\":{\"id\":10,\"name\":\"doggie\","
                + "\"photoUrls\":[],\"petDetailsId\":\"one\"}}"))).as("the reference into PetDetails holds").isNotEmpty();
    }

    Map<String, String> skippedOf(String documentText) {
        Toolgate gate = gate(OpenApiSource.builder("petstore31").documentText(documentText).server(server(PETSTORE_31)).build());
        assertThat(gate.listSources().get(0).state()).isEqualTo(SourceStatus.State.AVAILABLE);
        return skipped(gate);
    }

    @Test
    void boxTheOperationsOnTheirOwnServersBecomeToolsOnceTheHostAllowsThoseServers() {
        Toolgate gate = gate(source(BOX).server(URI.create("https://upload.box.com/api/2.0"))
                .server(URI.create("https://dl.boxcloud.com/2.0")).server(URI.create("https://api.box.com"))
                .server(URI.create("https://account.box.com/api/oauth2")).build());
        Map<String, RegisteredTool> tools = tools(gate, BOX);
        assertThat(gate.listSources().get(0).skipped()).isEmpty();
        assertThat(tools).hasSize(296);
        assertThat(tools.get("get_files_upload_sessions_id").tool().contract()).as("{box-upload-server} took its default")
                .contains("GET https://upload.box.com/api/2.0/files/upload_sessions/{upload_session_id} read");
        assertThat(tools.get("post_oauth2_token_refresh").tool().contract()).as("the #refresh fragment is not sent")
                .contains("POST https://api.box.com/oauth2/token mutate");
        assertThat(tools.get("get_zip_downloads_id_content").tool().contract())
                .contains("GET https://dl.boxcloud.com/2.0/zip_downloads/{zip_download_id}/content read");
        assertThat(tools.get("get_files_id").tool().contract())
                .as("the rest go to the host's first server, which is configuration and not part of the contract")
                .contains("GET /files/{file_id} read");
    }

    @Test
    void boxListingTheLargestDocumentYieldsAtLeast250Tools() {
        Toolgate gate = gate(source(BOX).build());
        assertThat(gate.listSources().get(0).state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(gate.listTools(CAROL)).hasSizeGreaterThanOrEqualTo(250);
    }

    @Test
    void boxOperationIdsWithHashOrColonAndLongNamesAreSanitizedAndCallable() {
        Toolgate gate = gate(source(BOX).build());
        Map<String, RegisteredTool> tools = tools(gate, BOX);
        assertThat(tools).containsKeys("get_files_id_get_shared_link", "post_metadata_taxonomies_id_id_levels_append",
                "put_metadata_templates_enterprise_securityClassification-6VMVochwUWo_schema_update");
        assertThat(tools.keySet()).allSatisfy(name -> assertThat(name).matches("[A-Za-z0-9_.-]+"));
        Executed executed = (Executed) gate.call(ctx(CAROL), "openapi:box.get_files_id_get_shared_link",
                "{\"path\":{\"file_id\":\"12345\"},\"query\":{\"fields\":\"shared_link\"}}");
        assertThat(executed.result().path("status").asInt()).isEqualTo(200);
        ApiServer.Seen seen = api.requests().get(0);
        assertThat(seen.rawPath()).as("the #get_shared_link fragment of the path key is not sent").isEqualTo("/2.0/files/12345");
        assertThat(seen.rawQuery()).isEqualTo("fields=shared_link");
    }

    @Test
    void discordPathItemLevelParametersAndTypeArraysWork() {
        Toolgate gate = gate(source(DISCORD).build());
        // GET /guilds/{guild_id}/members: guild_id is declared on the path item, limit and after on the operation
        RegisteredTool members = gate.registry().find("openapi:discord.list_guild_members").orElseThrow();
        JsonNode schema = members.descriptor().inputSchema();
        assertThat(schema.path("properties").path("path").path("required").toString()).isEqualTo("[\"guild_id\"]");
        assertThat(schema.path("properties").path("query").path("properties").propertyNames()).contains("limit");
        gate.call(ctx(CAROL), members.name(), "{\"path\":{\"guild_id\":\"81384788765712384\"},\"query\":{\"limit\":5}}");
        assertThat(api.requests().get(0).rawPath()).isEqualTo("/api/v10/guilds/81384788765712384/members");
        assertThat(api.requests().get(0).rawQuery()).isEqualTo("limit=5");

        // "type": ["string", "null"] stays a JSON Schema type array: null is accepted where the document allows it
        RegisteredTool update = gate.registry().find("openapi:discord.update_guild").orElseThrow();
        assertThat(update.validate(Json.parse(
                "{\"path\":{\"guild_id\":\"1\"},\"body\":{\"name\":\"Guild\",\"description\":null}}"))).isEmpty();
        assertThat(update.validate(Json.parse(
                "{\"path\":{\"guild_id\":\"1\"},\"body\":{\"description\":5}}"))).isNotEmpty();
    }

    @Test
    void discordADeepRequestBodyIsValidatedAllTheWayDownWithOnlyTheComponentsItReaches() {
        Toolgate gate = gate(source(DISCORD).build());
        RegisteredTool create = gate.registry().find("openapi:discord.create_message").orElseThrow();
        JsonNode schema = create.descriptor().inputSchema();
        assertThat(schema.path("properties").path("body").path("$ref").asString()).isEqualTo("#/$defs/MessageCreateRequest");
        JsonNode defs = schema.path("$defs");
        assertThat(defs.propertyNames()).contains("MessageCreateRequest", "RichEmbed", "RichEmbedField",
                "ContainerComponentForMessageRequest", "ActionRowComponentForMessageRequest", "ButtonComponentForMessageRequest");
        assertThat(defs.propertyNames()).as("response-only schemas stay out")
                .doesNotContain("ErrorDetails", "ErrorResponse", "MessageResponse");
        assertThat(longestReferenceChain(defs, "MessageCreateRequest")).as("a deep schema").isGreaterThanOrEqualTo(4);

        String container = "{\"path\":{\"channel_id\":\"1\"},\"body\":{\"content\":\"hi\",\"embeds\":[{\"title\":\"t\","
                + "\"fields\":[{\"name\":\"a\",\"value\":\"b\"}]}],\"components\":[{\"type\":17,\"components\":[{\"type\":1,"
                + "\"components\":[{\"type\":2,\"style\":1,\"custom_id\":\"ok\",\"label\":\"OK\"}]}]}]}}";
        assertThat(create.validate(Json.parse(container))).isEmpty();
        // a button three components down without its required style
        assertThat(create.validate(Json.parse(container.replace("\"style\":1,", "")))).isNotEmpty();
        // an embed field whose name is a number
        assertThat(create.validate(Json.parse(container.replace("\"name\":\"a\"", "\"name\":5"))))
                .isNotEmpty();
    }

    /** The most {@code $defs} one reference path from {@code start} passes through without repeating one. */
    static int longestReferenceChain(JsonNode defs, String start) {
        return longest(defs, start, new HashSet<>());
    }

    private static int longest(JsonNode defs, String name, Set<String> onPath) {
        if (!onPath.add(name) || onPath.size() > 12) {
            onPath.remove(name);
            return 0;
        }
        int best = 0;
        Set<String> next = new TreeSet<>();
        collectRefs(defs.path(name), next);
        for (String target : next) {
            if (!onPath.contains(target)) {
                best = Math.max(best, longest(defs, target, onPath));
            }
        }
        onPath.remove(name);
        return best + 1;
    }

    private static void collectRefs(JsonNode node, Set<String> into) {
        if (node.isObject() && node.path("$ref").isString() && node.path("$ref").asString().startsWith("#/$defs/")) {
            into.add(node.path("$ref").asString().substring("#/$defs/".length()).split("/")[0]);
        }
        if (node.isContainer()) {
            node.values().forEach(child -> collectRefs(child, into));
        }
    }

    @Test
    void discordTheRecursiveErrorDetailsStaysAReferenceAndValidatesAtAnyDepth() throws IOException {
        // ErrorDetails reaches itself, but only through responses; give one operation a body of ErrorResponse
        ObjectNode document = (ObjectNode) read(DISCORD);
        ObjectNode report = ((ObjectNode) document.path("paths")).putObject("/error-reports").putObject("post");
        report.put("operationId", "report_error");
        report.putObject("requestBody").put("required", true).putObject("content").putObject("application/json")
                .putObject("schema").put("$ref", "#/components/schemas/ErrorResponse");
        report.putObject("responses").putObject("204").put("description", "No content");
        Toolgate gate = gate(OpenApiSource.builder("discord").documentText(Json.write(document))
                .server(server(DISCORD)).build());
        assertThat(gate.listSources().get(0).skipped()).hasSize(3);
        RegisteredTool tool = gate.registry().find("openapi:discord.report_error").orElseThrow();
        JsonNode defs = tool.descriptor().inputSchema().path("$defs");
        assertThat(new TreeSet<>(defs.propertyNames())).containsExactly("Error", "ErrorDetails", "ErrorResponse", "InnerErrors");
        assertThat(defs.path("ErrorDetails").path("oneOf").get(0).path("additionalProperties").path("$ref").asString())
                .isEqualTo("#/$defs/ErrorDetails");

        String deep = "{\"body\":{\"code\":50035,\"message\":\"Invalid Form Body\",\"errors\":{\"embeds\":{\"0\":{\"fields\":"
                + "{\"0\":{\"name\":{\"_errors\":[{\"code\":1,\"message\":\"Must be 256 or fewer in length.\"}]}}}}}}}}";
        assertThat(tool.validate(Json.parse(deep))).isEmpty();
        assertThat(tool.validate(Json.parse(deep.replace("\"code\":1,", "")))).as("an Error five levels down "
                + "without its code").isNotEmpty();
    }

    @Test
    void petstoreExpandedAnOperationIdWithSpacesBecomesAToolNameWithUnderscores() {
        Toolgate gate = gate(source(EXPANDED).build());
        Executed executed = (Executed) gate.call(ctx(CAROL), "openapi:expanded.find_pet_by_id", "{\"path\":{\"id\":7}}");
        assertThat(executed.result().path("status").asInt()).isEqualTo(200);
        assertThat(api.requests().get(0).rawPath()).isEqualTo("/api/pets/7");
        RegisteredTool findPets = gate.registry().find("openapi:expanded.findPets").orElseThrow();
        // tags is an array of strings (form, exploded by default), limit an int32
        gate.call(ctx(CAROL), findPets.name(), "{\"query\":{\"tags\":[\"dog\",\"cat\"],\"limit\":2}}");
        assertThat(api.requests().get(1).rawQuery()).isEqualTo("tags=dog&tags=cat&limit=2");
    }

    @Test
    void callbackExampleAnOperationWithoutOperationIdIsNamedByMethodAndPathAndItsCallbackIsNoTool() {
        Toolgate gate = gate(source(CALLBACKS).build());
        assertThat(tools(gate, CALLBACKS)).containsOnlyKeys("post_streams");
        RegisteredTool streams = gate.registry().find("openapi:callbacks.post_streams").orElseThrow();
        assertThat(streams.effect()).isEqualTo(Effect.MUTATE);
        JsonNode schema = streams.descriptor().inputSchema();
        assertThat(schema.path("required").toString()).isEqualTo("[\"query\"]");
        assertThat(schema.path("properties").path("query").path("required").toString()).isEqualTo("[\"callbackUrl\"]");
        assertThat(schema.path("properties").has("body")).isFalse();
    }

    @Test
    void tictactoePathItemParametersByReferenceAndAHeaderParameterReachTheRequest() {
        Toolgate gate = gate(source(TICTACTOE).build());
        gate.call(ctx(CAROL), "openapi:tictactoe.get-square", "{\"path\":{\"row\":1,\"column\":3}}");
        assertThat(api.requests().get(0).rawPath()).isEqualTo("/api/board/1/3");
        RegisteredTool put = gate.registry().find("openapi:tictactoe.put-square").orElseThrow();
        JsonNode schema = put.descriptor().inputSchema();
        assertThat(schema.path("properties").path("header").path("properties").propertyNames()).containsExactly("progressUrl");
        assertThat(put.validate(Json.parse("{\"path\":{\"row\":4,\"column\":1},\"body\":\"X\"}")))
                .as("row is 1-3").isNotEmpty();
        assertThat(put.validate(Json.parse("{\"path\":{\"row\":2,\"column\":1},\"body\":\"X\"}"))).isEmpty();
    }

    // ------------------------------------------------------------------------------------------ minimal arguments

    /**
     * A minimal value a JSON Schema accepts: required members only, the first enum value, the first
     * alternative of a oneOf or anyOf that is not just null, numbers and strings within their bounds.
     * Enough for the schemas these documents have; it fails loudly on anything it cannot satisfy.
     */
    static final class Minimal {

        private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
        private static final List<String> STRINGS = List.of("1", "123", "x", "abc", "a1", "A", "AB", "1.0", "2024-01-02",
                "2024-01-02T03:04:05Z", "abc_def", "#abcdef", "en-US", "EUR");

        private final JsonNode root;

        private Minimal(JsonNode root) {
            this.root = root;
        }

        static JsonNode of(JsonNode schema) {
            return new Minimal(schema).value(schema, 0);
        }

        JsonNode value(JsonNode schema, int depth) {
            if (depth > 60) {
                throw new IllegalStateException("the schema nests too deep for a minimal value");
            }
            if (schema == null || schema.isBoolean()) {
                if (schema != null && !schema.asBoolean()) {
                    throw new IllegalStateException("the schema false accepts nothing");
                }
                return NODES.stringNode("x");
            }
            ObjectNode s = flatten(schema, depth);
            // an enum beside an allOf of a shared enum type (Discord's discriminators) is the narrower: it goes first
            if (s.path("enum").isArray() && !s.path("enum").isEmpty()) {
                for (JsonNode option : s.path("enum")) {
                    if (!option.isNull()) {
                        return option;
                    }
                }
                return s.path("enum").get(0);
            }
            if (s.has("const")) {
                return s.get("const");
            }
            return switch (type(s)) {
                case "object" -> object(s, depth);
                case "array" -> array(s, depth);
                case "integer" -> NODES.numberNode(number(s, true).longValueExact());
                case "number" -> NODES.numberNode(number(s, false));
                case "boolean" -> NODES.booleanNode(true);
                case "null" -> NODES.nullNode();
                default -> NODES.stringNode(string(s));
            };
        }

        private ObjectNode flatten(JsonNode schema, int depth) {
            ObjectNode out = NODES.objectNode();
            merge(out, schema, depth);
            return out;
        }

        private void merge(ObjectNode out, JsonNode schema, int depth) {
            if (depth > 60) {
                throw new IllegalStateException("references nest too deep");
            }
            if (!schema.isObject()) {
                return;
            }
            if (schema.path("$ref").isString()) {
                merge(out, root.at(schema.path("$ref").asString().substring(1)), depth + 1);
            }
            for (var field : schema.properties()) {
                String key = field.getKey();
                JsonNode value = field.getValue();
                switch (key) {
                    case "$ref", "$defs", "description", "title", "examples", "default" -> {
                    }
                    case "allOf" -> value.forEach(branch -> merge(out, branch, depth + 1));
                    case "oneOf", "anyOf" -> merge(out, choose(value, depth), depth + 1);
                    case "properties" -> {
                        ObjectNode properties = out.has("properties") ? (ObjectNode) out.get("properties") : out.putObject("properties");
                        value.properties().forEach(p -> properties.putIfAbsent(p.getKey(), p.getValue()));
                    }
                    case "required" -> {
                        ArrayNode required = out.has("required") ? (ArrayNode) out.get("required") : out.putArray("required");
                        value.forEach(name -> {
                            if (!required.toString().contains(name.toString())) {
                                required.add(name);
                            }
                        });
                    }
                    case "type" -> {
                        if (!out.has("type")) {
                            out.set("type", value);
                        } else if (out.get("type").isArray() && value.isString()) {
                            out.set("type", value); // the narrower of the two
                        }
                    }
                    default -> out.putIfAbsent(key, value);
                }
            }
        }

        /** The first alternative that is more than null. */
        private JsonNode choose(JsonNode alternatives, int depth) {
            for (JsonNode alternative : alternatives) {
                if (!type(flatten(alternative, depth + 1)).equals("null")) {
                    return alternative;
                }
            }
            return alternatives.get(0);
        }

        private static String type(ObjectNode s) {
            JsonNode type = s.get("type");
            if (type != null && type.isString()) {
                return type.asString();
            }
            if (type != null && type.isArray()) {
                for (JsonNode t : type) {
                    if (!t.asString().equals("null")) {
                        return t.asString();
                    }
                }
                return "null";
            }
            if (s.has("properties") || s.has("required") || s.has("additionalProperties")) {
                return "object";
            }
            if (s.has("items")) {
                return "array";
            }
            return "string";
        }

        private JsonNode object(ObjectNode s, int depth) {
            ObjectNode out = NODES.objectNode();
            for (JsonNode name : s.path("required")) {
                JsonNode property = s.path("properties").get(name.asString());
                if (property == null) {
                    property = s.get("additionalProperties");
                }
                out.set(name.asString(), value(property, depth + 1));
            }
            return out;
        }

        private JsonNode array(ObjectNode s, int depth) {
            ArrayNode out = NODES.arrayNode();
            int min = s.path("minItems").asInt(0);
            for (int i = 0; i < min; i++) {
                JsonNode item = value(s.get("items"), depth + 1);
                if (s.path("uniqueItems").asBoolean(false) && i > 0) {
                    // distinct items: "1", "12", "13" ... or 1, 2, 3 ...
                    item = item.isString() ? NODES.stringNode(item.asString() + (i + 1))
                            : item.isNumber() ? NODES.numberNode(item.decimalValue().add(java.math.BigDecimal.valueOf(i))) : item;
                }
                out.add(item);
            }
            return out;
        }

        private static java.math.BigDecimal number(ObjectNode s, boolean integer) {
            java.math.BigDecimal value = java.math.BigDecimal.ONE;
            java.math.BigDecimal step = integer ? java.math.BigDecimal.ONE : new java.math.BigDecimal("0.5");
            if (s.path("minimum").isNumber() && value.compareTo(s.get("minimum").decimalValue()) < 0) {
                value = s.get("minimum").decimalValue();
            }
            if (s.path("exclusiveMinimum").isNumber() && value.compareTo(s.get("exclusiveMinimum").decimalValue()) <= 0) {
                value = s.get("exclusiveMinimum").decimalValue().add(step);
            }
            if (s.path("maximum").isNumber() && value.compareTo(s.get("maximum").decimalValue()) > 0) {
                value = s.get("maximum").decimalValue();
            }
            if (s.path("exclusiveMaximum").isNumber() && value.compareTo(s.get("exclusiveMaximum").decimalValue()) >= 0) {
                value = s.get("exclusiveMaximum").decimalValue().subtract(step);
            }
            if (s.path("multipleOf").isNumber()) {
                java.math.BigDecimal of = s.get("multipleOf").decimalValue();
                value = value.divide(of, 0, java.math.RoundingMode.CEILING).multiply(of);
            }
            return integer ? value.setScale(0, java.math.RoundingMode.CEILING) : value;
        }

        private static String string(ObjectNode s) {
            List<String> candidates = new ArrayList<>();
            switch (s.path("format").asString("")) {
                case "date-time" -> candidates.add("2024-01-02T03:04:05Z");
                case "date" -> candidates.add("2024-01-02");
                case "time" -> candidates.add("03:04:05Z");
                case "email" -> candidates.add("a@example.com");
                case "uri", "url", "iri", "uri-reference" -> candidates.add("https://example.com/a");
                case "uuid" -> candidates.add("123e4567-e89b-12d3-a456-426614174000");
                case "ipv4" -> candidates.add("192.0.2.1");
                case "hostname" -> candidates.add("example.com");
                default -> {
                }
            }
            candidates.addAll(STRINGS);
            int min = s.path("minLength").asInt(0);
            int max = s.path("maxLength").asInt(Integer.MAX_VALUE);
            Pattern pattern = s.path("pattern").isString() ? Pattern.compile(s.get("pattern").asString()) : null;
            for (String candidate : candidates) {
                String padded = candidate.length() >= min ? candidate : candidate + "1".repeat(min - candidate.length());
                if (padded.length() <= max && (pattern == null || pattern.matcher(padded).find())) {
                    return padded;
                }
            }
            throw new IllegalStateException("no candidate string fits " + s);
        }
    }
}
