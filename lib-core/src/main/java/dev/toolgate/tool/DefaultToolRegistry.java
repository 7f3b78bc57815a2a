package dev.toolgate.tool;

import dev.toolgate.json.Redactor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/** Copy-on-write registry: writers serialize, readers see an immutable snapshot. */
final class DefaultToolRegistry implements ToolRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(ToolRegistry.class);
    /** Throwables from host code are logged redacted (a secret in a message or a URL stays out of the log). */
    private static final Redactor LOGGED = Redactor.defaults();
    private static final Pattern PLUGIN_ID = Pattern.compile("([a-z][a-z0-9]{0,7}:)?[A-Za-z0-9_-]{1,32}");
    private static final int MAX_NAME = 64;
    /** Tools of a source ({@code mcp:github.create_issue}) keep the remote name, up to MCP's 128. */
    private static final int MAX_SOURCE_NAME = 128;
    /** Reserved for tools the adapters add themselves, such as {@code toolgate.apply}. */
    static final String RESERVED_PLUGIN = "toolgate";

    private final ToolSchemas schemas;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile Map<String, RegisteredTool> snapshot = Map.of();

    DefaultToolRegistry(JsonMapper mapper) {
        this.schemas = new ToolSchemas(mapper);
    }

    @Override
    public List<RegisteredTool> register(ToolProvider provider) {
        return add(provider, false);
    }

    @Override
    public List<RegisteredTool> replace(ToolProvider provider) {
        return add(provider, true);
    }

    private List<RegisteredTool> add(ToolProvider provider, boolean replace) {
        String source = describe(provider);
        List<RegisteredTool> added = new ArrayList<>();
        boolean changed;
        synchronized (this) {
            String pluginId = pluginIdOf(provider, source);
            List<Tool<?, ?>> tools;
            try {
                tools = List.copyOf(provider.tools());
            } catch (ToolDefinitionException e) {
                throw new ToolDefinitionException(source + " (plugin '" + pluginId + "'): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw new ToolDefinitionException(source + " (plugin '" + pluginId + "') failed to build its tools: " + e, e);
            }
            Map<String, RegisteredTool> next = new TreeMap<>(snapshot);
            List<List<Object>> before = List.of();
            if (replace) {
                before = next.values().stream().filter(t -> t.pluginId().equals(pluginId)).map(DefaultToolRegistry::identity)
                        .toList();
                next.values().removeIf(t -> t.pluginId().equals(pluginId));
            }
            int max = pluginId.indexOf(':') >= 0 ? MAX_SOURCE_NAME : MAX_NAME;
            for (Tool<?, ?> tool : tools) {
                String name = pluginId + "." + tool.name();
                if (name.length() > max) {
                    throw new ToolDefinitionException("Tool name '" + name + "' from " + source + " is " + name.length()
                            + " characters; tool names are at most " + max + " (MCP-safe)");
                }
                RegisteredTool existing = next.get(name);
                if (existing != null) {
                    throw new ToolDefinitionException("Duplicate tool '" + name + "': registered by " + existing.source()
                            + " and again by " + source);
                }
                RegisteredTool registered;
                try {
                    registered = RegisteredTool.create(pluginId, tool, source, schemas);
                } catch (ToolDefinitionException e) {
                    throw new ToolDefinitionException(source + ": " + e.getMessage(), e);
                }
                next.put(name, registered);
                added.add(registered);
            }
            changed = !replace || !before.equals(added.stream()
                    .sorted(java.util.Comparator.comparing(RegisteredTool::name)).map(DefaultToolRegistry::identity).toList());
            if (changed) {
                snapshot = Collections.unmodifiableMap(next);
            } else {
                return List.copyOf(added.stream().map(t -> snapshot.get(t.name())).toList());
            }
        }
        LOG.debug("Registered {} tool(s) from {}", added.size(), source);
        fireChanged();
        return List.copyOf(added);
    }

    /** What makes a replacement a change: what the model sees, and the fingerprint (the contract too). */
    private static List<Object> identity(RegisteredTool tool) {
        return List.of(tool.descriptor(), tool.schemaFingerprint());
    }

    @Override
    public int unregisterPlugin(String pluginId) {
        int removed;
        synchronized (this) {
            Map<String, RegisteredTool> next = new TreeMap<>(snapshot);
            removed = next.size();
            next.values().removeIf(t -> t.pluginId().equals(pluginId));
            removed -= next.size();
            snapshot = Collections.unmodifiableMap(next);
        }
        if (removed > 0) {
            fireChanged();
        }
        return removed;
    }

    @Override
    public Optional<RegisteredTool> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(snapshot.get(name));
    }

    @Override
    public List<RegisteredTool> tools() {
        return List.copyOf(snapshot.values());
    }

    @Override
    public void addListener(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(Runnable listener) {
        listeners.remove(listener);
    }

    private void fireChanged() {
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("A tool registry listener failed", LOGGED.redactThrowable(e));
            }
        }
    }

    private static String pluginIdOf(ToolProvider provider, String source) {
        String pluginId;
        try {
            pluginId = provider.pluginId();
        } catch (RuntimeException e) {
            throw new ToolDefinitionException(source + " failed to report its plugin id: " + e, e);
        }
        if (pluginId == null || !PLUGIN_ID.matcher(pluginId).matches()) {
            throw new ToolDefinitionException(source + " has an invalid plugin id '" + pluginId
                    + "': use 1-32 characters of A-Za-z0-9_- (a tool source's id may carry its kind, as in mcp:github)");
        }
        if (RESERVED_PLUGIN.equals(pluginId)) {
            throw new ToolDefinitionException(source + " uses the reserved plugin id '" + RESERVED_PLUGIN + "'");
        }
        return pluginId;
    }

    static String describe(ToolProvider provider) {
        Class<?> type = provider.getClass();
        return type.isAnonymousClass() || type.isSynthetic() ? provider.toString() : type.getName();
    }
}
