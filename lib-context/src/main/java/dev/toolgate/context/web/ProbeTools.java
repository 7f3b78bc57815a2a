package dev.toolgate.context.web;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code web} plugin: one tool, {@code web.probeUrl}, that makes ONE GET or HEAD request behind
 * the {@link SsrfGuard} so a model can see what an endpoint really returns (status, a safe subset of
 * headers, a capped body sample) before it drafts a check against it. It is {@link Effect#READ} and
 * open-world; redirects are reported, never followed.
 *
 * <pre>{@code
 * gate.registry().register(ProbeTools.tools(ProbeSettings.defaults(), "ai.chat.read"));
 * }</pre>
 */
public final class ProbeTools {

    /** The plugin id. */
    public static final String PLUGIN_ID = "web";

    /** The tool's local name; registered as {@code web.probeUrl}. */
    public static final String PROBE_URL = "probeUrl";

    /**
     * The input of {@code web.probeUrl}.
     *
     * @param url    the http or https URL to probe, at most {@value SsrfGuard#MAX_URL_LENGTH} characters
     * @param method GET (the default) or HEAD
     */
    public record ProbeUrlInput(
            @JsonPropertyDescription("The public http:// or https:// URL to probe. Internal, private and "
                    + "loopback addresses are refused.") @Size(min = 1, max = SsrfGuard.MAX_URL_LENGTH) String url,
            @JsonPropertyDescription("GET (default) or HEAD") Optional<ProbeMethod> method) {
    }

    private ProbeTools() {
    }

    /**
     * The {@code web} plugin with {@code web.probeUrl}.
     *
     * @param settings      timeouts, body cap and resolver
     * @param requiredRules the access rules a caller must hold, such as {@code ai.chat.read}
     */
    public static ToolProvider tools(ProbeSettings settings, String... requiredRules) {
        return ToolProvider.of(PLUGIN_ID, probeUrl(settings, requiredRules));
    }

    /** The {@code probeUrl} tool alone, for a host that assembles its own provider. */
    public static Tool<ProbeUrlInput, ProbeResult> probeUrl(ProbeSettings settings, String... requiredRules) {
        Objects.requireNonNull(settings, "settings");
        UrlProbe probe = new UrlProbe(settings);
        // the probe ends by its own deadline; the gate's timeout is only a backstop
        Duration backstop = settings.totalTimeout().plusSeconds(5);
        return Tool.builder(PROBE_URL, ProbeUrlInput.class)
                .title("Probe a URL")
                .description("Make ONE HTTP GET or HEAD request to a public URL and return what it really answers: "
                        + "status, statusText, redirected and location (a redirect is reported, NOT followed; probe "
                        + "the location yourself if you need it), contentType, a safe subset of headers, and the "
                        + "start of the body (at most " + settings.maxBodyBytes() + " bytes; bodyTruncated says if "
                        + "there is more). Use it before drafting a check against an endpoint you have not seen. "
                        + "No cookies or credentials are sent; internal and private addresses are refused.")
                .effect(Effect.READ)
                .openWorld(true)
                .requires(requiredRules)
                .timeout(backstop)
                .onCallerThread(false) // DNS lookups ignore interruption: the backstop must answer the caller
                .output(ProbeResult.class)
                .execute((in, ctx) -> probe.probe(in.url(), in.method().orElse(ProbeMethod.GET)))
                .build();
    }
}
