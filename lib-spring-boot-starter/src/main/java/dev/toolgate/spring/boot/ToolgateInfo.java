package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/** The {@code toolgate} entry of {@code /actuator/info}: what runs, never a secret. */
final class ToolgateInfo implements InfoContributor {

    private final Toolgate toolgate;
    private final ToolgateProperties properties;

    ToolgateInfo(Toolgate toolgate, ToolgateProperties properties) {
        this.toolgate = toolgate;
        this.properties = properties;
    }

    @Override
    public void contribute(Info.Builder builder) {
        Map<String, Object> info = new LinkedHashMap<>();
        String version = Toolgate.class.getPackage().getImplementationVersion();
        info.put("version", version == null ? "development" : version);
        info.put("tools", toolgate.registry().tools().size());
        info.put("sources", toolgate.listSources().size());
        info.put("approverRule", toolgate.settings().approverRule());
        info.put("consent", properties.getSpringAi().getConsent().name().toLowerCase(Locale.ROOT));
        if (properties.getConsole().isEnabled()) {
            info.put("console", properties.getConsole().getPath() + "/");
        }
        if (properties.getMcp().isEnabled()) {
            info.put("mcp", properties.getMcp().getPath());
        }
        builder.withDetail("toolgate", info);
    }
}
