package dev.toolgate.mcp;

import dev.toolgate.access.Guarded;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A family of resources under an RFC 6570 level-1 URI template such as {@code test://template/{id}/data},
 * listed in {@code resources/templates/list}. A read of a URI the template matches runs the reader
 * with each variable's value ({@link McpResource.Request#variables()}); a variable matches one or
 * more characters other than {@code / ? #}, percent-decoded as UTF-8. Values are untrusted data: a
 * value cannot make the URI select another resource (matching happens on the URI as sent, before
 * decoding), but it may contain {@code ../}, an encoded {@code /}, control characters or any Unicode.
 *
 * <pre>{@code
 * McpResourceTemplate.builder("test://template/{id}/data", "template-data")
 *         .mimeType("application/json")
 *         .reader(request -> List.of(McpContents.text(request.uri(), "application/json",
 *                 Json.write(Json.object().put("id", request.variables().get("id"))))))
 *         .complete("id", request -> ids.startingWith(request.value()))
 *         .build();
 * }</pre>
 */
public final class McpResourceTemplate implements Guarded {

    private final UriTemplate template;
    private final String name;
    private final String title;
    private final String description;
    private final String mimeType;
    private final Set<String> requiredAccessRules;
    private final McpResource.Reader reader;
    private final Map<String, McpCompleter> completers;

    private McpResourceTemplate(Builder builder) {
        this.template = builder.template;
        this.name = builder.name;
        this.title = builder.title;
        this.description = builder.description;
        this.mimeType = builder.mimeType;
        this.requiredAccessRules = Set.copyOf(builder.rules);
        this.reader = Objects.requireNonNull(builder.reader, "reader: a resource template needs a reader");
        this.completers = Map.copyOf(builder.completers);
    }

    /** A builder for the template {@code uriTemplate} named {@code name}. */
    public static Builder builder(String uriTemplate, String name) {
        return new Builder(uriTemplate, name);
    }

    /** The template as registered, such as {@code test://template/{id}/data}. */
    public String uriTemplate() {
        return template.template();
    }

    /** The variable names, in template order. */
    public List<String> variables() {
        return template.variables();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<String> requiredAccessRules() {
        return requiredAccessRules;
    }

    String title() {
        return title;
    }

    String description() {
        return description;
    }

    String mimeType() {
        return mimeType;
    }

    McpResource.Reader reader() {
        return reader;
    }

    Map<String, McpCompleter> completers() {
        return completers;
    }

    /** The decoded variables when {@code uri} matches, else null. */
    Map<String, String> match(String uri) {
        return template.match(uri);
    }

    /** Builds an {@link McpResourceTemplate}. */
    public static final class Builder {

        private final UriTemplate template;
        private final String name;
        private String title;
        private String description;
        private String mimeType;
        private final Set<String> rules = new LinkedHashSet<>();
        private McpResource.Reader reader;
        private final Map<String, McpCompleter> completers = new LinkedHashMap<>();

        private Builder(String uriTemplate, String name) {
            this.template = UriTemplate.parse(uriTemplate);
            this.name = McpResource.checkText(name, "name");
        }

        public Builder title(String title) {
            this.title = title;
            return this;
        }

        public Builder description(String description) {
            this.description = description;
            return this;
        }

        public Builder mimeType(String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        /** Access rules a principal must all hold (decided by the gate's resolver). */
        public Builder requires(String... rules) {
            this.rules.addAll(McpResource.checkRules(rules));
            return this;
        }

        /** The function producing the contents of a matching URI. */
        public Builder reader(McpResource.Reader reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
            return this;
        }

        /** Completion of one variable's values ({@code completion/complete} with a {@code ref/resource}). */
        public Builder complete(String variable, McpCompleter completer) {
            if (!template.variables().contains(variable)) {
                throw new IllegalArgumentException("uriTemplate '" + template.template() + "' has no variable {" + variable + "}");
            }
            completers.put(variable, Objects.requireNonNull(completer, "completer"));
            return this;
        }

        public McpResourceTemplate build() {
            return new McpResourceTemplate(this);
        }
    }
}
