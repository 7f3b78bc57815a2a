package dev.toolgate.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ToolNamesTest {

    private static final Pattern CHAT_API = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

    @Test
    void qualifiedNamesMapToChatSafeNamesAndBack() {
        List<String> names = List.of("incident.create", "incident.find", "mcp:github.create_issue", "a-b.c_d",
                "x.y.z");
        ToolNames mapping = ToolNames.of(names);
        assertThat(mapping.wireName("incident.create")).contains("incident__create");
        assertThat(mapping.wireName("mcp:github.create_issue")).contains("mcp_x_github__create_issue");
        for (String name : names) {
            String wire = mapping.wireName(name).orElseThrow();
            assertThat(wire).matches(CHAT_API);
            assertThat(mapping.qualifiedName(wire)).contains(name);
        }
    }

    @Test
    void aNameTheMappingDidNotHandOutMapsToNothing() {
        ToolNames mapping = ToolNames.of(List.of("incident.create"));
        assertThat(mapping.qualifiedName("incident.create")).isEmpty();
        assertThat(mapping.qualifiedName("incident__find")).isEmpty();
        assertThat(mapping.qualifiedName("INCIDENT__CREATE")).isEmpty();
        assertThat(mapping.qualifiedName(null)).isEmpty();
    }

    @Test
    void collidingNamesAreRefusedNamingBoth() {
        assertThatThrownBy(() -> ToolNames.of(List.of("a_.b", "a._b")))
                .isInstanceOf(ToolNameException.class)
                .hasMessageContaining("'a_.b'").hasMessageContaining("'a._b'").hasMessageContaining("a___b");
        assertThatThrownBy(() -> ToolNames.of(List.of("incident.create", "incident__create")))
                .isInstanceOf(ToolNameException.class).hasMessageContaining("incident__create");
        assertThatThrownBy(() -> ToolNames.of(List.of("p:q.r", "p_x_q.r")))
                .isInstanceOf(ToolNameException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "incident create", "incident/create", "incident.créer", "tool\u0000name",
            "tool\nname", "a.b;drop table", "../../etc/passwd", "name\u202Egnp", "emoji.\uD83D\uDE00", "$(rm -rf)",
            "x{}", "a,b"})
    void hostileNamesAreRefusedWithAClearError(String hostile) {
        assertThatThrownBy(() -> ToolNames.of(List.of("incident.find", hostile)))
                .isInstanceOf(ToolNameException.class).hasMessageContaining("cannot be offered");
    }

    @Test
    void nullAndOverlongNamesAreRefused() {
        List<String> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> ToolNames.of(withNull)).isInstanceOf(ToolNameException.class);
    }

    @Test
    void theEncodedLengthLimitIs64() {
        String fits = "p." + "t".repeat(61); // p__ + 61 = 64
        assertThat(ToolNames.encode(fits)).hasSize(64);
        String over = "p." + "t".repeat(62); // 65
        assertThatThrownBy(() -> ToolNames.encode(over)).isInstanceOf(ToolNameException.class)
                .hasMessageContaining("65 characters").hasMessageContaining("at most 64");
    }

    @Test
    void theLenientMappingLeavesOutCollidingAndBadNamesAndReportsThem() {
        List<String> problems = new ArrayList<>();
        ToolNames mapping = ToolNames.lenient(List.of("a_.b", "a._b", "ok.tool", "bad name"), problems::add);
        assertThat(mapping.asMap()).containsOnlyKeys("ok.tool");
        assertThat(problems).hasSize(2);
    }
}
