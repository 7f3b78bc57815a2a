package dev.toolgate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.json.FieldChange;
import dev.toolgate.json.Json;
import dev.toolgate.json.Redactor;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.StringNode;

class HygieneTest {

    private final Hygiene hygiene = new Hygiene(Redactor.defaults(), 1024);

    private static FieldChange change(String path, String before, String after) {
        return new FieldChange(path, before == null ? null : Json.parse(before), after == null ? null : Json.parse(after));
    }

    @Test
    void aChangeUnderASensitiveKeyAtAnyLevelOfItsPathIsHidden() {
        List<FieldChange> safe = hygiene.diff(List.of(
                change("/credentials/pass", "\"old-value\"", "\"new-value\""),
                change("/config/apiKey/primary", null, "\"k-123\""),
                change("/db/password", "\"hunter2\"", null),
                change("/owner/name", "\"ann\"", "\"bob\"")));

        StringNode hidden = StringNode.valueOf(Redactor.REDACTED);
        assertThat(safe.get(0)).isEqualTo(new FieldChange("/credentials/pass", hidden, hidden));
        assertThat(safe.get(1)).isEqualTo(new FieldChange("/config/apiKey/primary", null, hidden));
        assertThat(safe.get(2)).isEqualTo(new FieldChange("/db/password", hidden, null));
        assertThat(safe.get(3)).isEqualTo(change("/owner/name", "\"ann\"", "\"bob\""));
    }

    @Test
    void valuesAreRedactedLikeResultsAndSecretShapedPathSegmentsAreHidden() {
        String key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
        List<FieldChange> safe = hygiene.diff(List.of(
                change("/settings", "{\"password\":\"hunter2\",\"theme\":\"dark\"}", "{\"password\":\"x\",\"theme\":\"light\"}"),
                change("/keys/" + key, null, "\"enabled\""),
                change("/a~1b", "1", "2")));

        assertThat(Json.write(safe.get(0).before())).doesNotContain("hunter2").contains("dark");
        assertThat(Json.write(safe.get(0).after())).doesNotContain("\"x\"").contains("light");
        assertThat(safe.get(1).path()).isEqualTo("/keys/" + Redactor.REDACTED).doesNotContain(key);
        assertThat(safe.get(2).path()).as("escaped segments are kept as they were").isEqualTo("/a~1b");
    }
}
