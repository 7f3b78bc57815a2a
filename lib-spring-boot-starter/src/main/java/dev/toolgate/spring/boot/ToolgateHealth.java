package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.json.Redactor;
import dev.toolgate.json.TextCap;
import dev.toolgate.source.SourceStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * DOWN when the store cannot be read (the gate then refuses every call: it fails closed); UP
 * otherwise, with each tool source's state in the details. A source that is down does not take the
 * application down (its tools are refused, the others work), but {@code sourcesUnavailable} counts it.
 */
final class ToolgateHealth extends AbstractHealthIndicator {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ToolgateHealth.class);
    private static final Redactor REDACT = Redactor.defaults();
    /** A call id no call has: reading it asks the store one indexed question. */
    private static final String PROBE = "toolgate-health-probe";

    private final Toolgate toolgate;

    ToolgateHealth(Toolgate toolgate) {
        super("Toolgate health check failed");
        this.toolgate = toolgate;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        try {
            toolgate.findCall(PROBE);
        } catch (RuntimeException e) {
            // one line, redacted, no stack trace: probes ask every few seconds while the database is down
            String message = TextCap.forLog(REDACT.redactText(String.valueOf(e.getMessage())));
            LOG.debug("Toolgate's store cannot be read: {}", message);
            builder.down().withDetail("store", "unreachable").withDetail("error", e.getClass().getSimpleName() + ": " + message);
            return;
        }
        Map<String, Object> sources = new LinkedHashMap<>();
        int unavailable = 0;
        for (SourceStatus source : toolgate.listSources()) {
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("state", source.state().wireName());
            detail.put("tools", source.tools());
            if (source.state() == SourceStatus.State.UNAVAILABLE) {
                unavailable++;
                if (source.error() != null) {
                    detail.put("error", source.error());
                }
            }
            sources.put(source.id(), detail);
        }
        builder.up().withDetail("store", "reachable").withDetail("tools", toolgate.registry().tools().size());
        if (!sources.isEmpty()) {
            builder.withDetail("sources", sources).withDetail("sourcesUnavailable", unavailable);
        }
    }
}
