package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.json.FieldChange.Kind;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class FieldDiffTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static List<FieldChange> diff(String before, String after) {
        return FieldDiff.between(Json.parse(before), Json.parse(after));
    }

    private static FieldChange change(String path, String before, String after) {
        return new FieldChange(path, before == null ? null : Json.parse(before), after == null ? null : Json.parse(after));
    }

    @Test
    void equalDocumentsHaveNoChanges() {
        assertThat(diff("{}", "{}")).isEmpty();
        assertThat(diff("{\"a\":1,\"b\":{\"c\":[1,2]}}", "{\"b\":{\"c\":[1,2]},\"a\":1}")).isEmpty();
        assertThat(diff("\"x\"", "\"x\"")).isEmpty();
    }

    @Test
    void numericallyEqualNumbersAreNotChanges() {
        assertThat(diff("{\"a\":1,\"b\":[1,{\"c\":2.50}]}", "{\"a\":1.0,\"b\":[1e0,{\"c\":2.5}]}")).isEmpty();
        assertThat(FieldDiff.between(NODES.numberNode(new BigDecimal("0.1")), NODES.numberNode(0.1))).isEmpty();
        assertThat(FieldDiff.between(NODES.numberNode(Double.NaN), NODES.numberNode(Double.NaN))).isEmpty();
        assertThat(FieldDiff.between(NODES.numberNode(Double.NaN), NODES.numberNode(1))).hasSize(1);
        assertThat(diff("{\"a\":1}", "{\"a\":1.5}")).containsExactly(change("/a", "1", "1.5"));
    }

    @Test
    void reportsAddedRemovedAndChangedMembers() {
        List<FieldChange> changes = diff("{\"keep\":1,\"old\":\"x\",\"status\":\"open\"}",
                "{\"keep\":1,\"new\":[1],\"status\":\"closed\"}");

        assertThat(changes).containsExactly(
                change("/new", null, "[1]"),
                change("/old", "\"x\"", null),
                change("/status", "\"open\"", "\"closed\""));
        assertThat(changes).extracting(FieldChange::kind).containsExactly(Kind.ADDED, Kind.REMOVED, Kind.CHANGED);
    }

    @Test
    void recursesIntoNestedObjects() {
        List<FieldChange> changes = diff(
                "{\"customer\":{\"name\":\"Ann\",\"address\":{\"city\":\"Oslo\",\"zip\":\"0150\"}}}",
                "{\"customer\":{\"name\":\"Ann\",\"address\":{\"city\":\"Bergen\",\"zip\":\"0150\",\"line2\":\"\"}}}");

        assertThat(changes).containsExactly(
                change("/customer/address/city", "\"Oslo\"", "\"Bergen\""),
                change("/customer/address/line2", null, "\"\""));
    }

    @Test
    void listsChangesInSortedKeyOrderAtEveryLevel() {
        List<FieldChange> changes = diff("{\"b\":1,\"a\":{\"z\":1,\"y\":1},\"c\":1}", "{\"c\":2,\"a\":{\"y\":2,\"z\":2},\"b\":2}");

        assertThat(changes).extracting(FieldChange::path).containsExactly("/a/y", "/a/z", "/b", "/c");
    }

    @Test
    void comparesArraysAsWholeValues() {
        assertThat(diff("{\"tags\":[\"a\",\"b\"]}", "{\"tags\":[\"b\",\"a\"]}"))
                .containsExactly(change("/tags", "[\"a\",\"b\"]", "[\"b\",\"a\"]"));
        assertThat(diff("{\"rows\":[{\"a\":1}]}", "{\"rows\":[{\"a\":2}]}"))
                .containsExactly(change("/rows", "[{\"a\":1}]", "[{\"a\":2}]"));
    }

    @Test
    void nullAndObjectReplaceEachOtherWhole() {
        assertThat(diff("{\"a\":null}", "{\"a\":{\"x\":1}}")).containsExactly(change("/a", "null", "{\"x\":1}"));
        assertThat(diff("{\"a\":{\"x\":1}}", "{\"a\":null}")).containsExactly(change("/a", "{\"x\":1}", "null"));
    }

    @Test
    void aJsonNullIsAValueNotAnAbsence() {
        List<FieldChange> changes = diff("{\"a\":null}", "{}");

        assertThat(changes).containsExactly(change("/a", "null", null));
        assertThat(changes.get(0).before()).isEqualTo(NODES.nullNode());
        assertThat(changes.get(0).kind()).isEqualTo(Kind.REMOVED);
    }

    @Test
    void typeChangesAreChanges() {
        assertThat(diff("{\"a\":\"1\"}", "{\"a\":1}")).containsExactly(change("/a", "\"1\"", "1"));
        assertThat(diff("{\"a\":{}}", "{\"a\":[]}")).containsExactly(change("/a", "{}", "[]"));
    }

    @Test
    void escapesPathsAsJsonPointers() {
        List<FieldChange> changes = diff("{\"a/b\":{\"m~n\":1,\"~1\":1},\"\":1}", "{\"a/b\":{\"m~n\":2,\"~1\":2},\"\":2}");

        assertThat(changes).extracting(FieldChange::path).containsExactly("/", "/a~1b/m~0n", "/a~1b/~01");
        assertThat(Json.parse("{\"a/b\":{\"m~n\":1}}").at(changes.get(1).path()).intValue()).isEqualTo(1);
    }

    @Test
    void comparesNonObjectRootsAsOneChange() {
        assertThat(diff("1", "2")).containsExactly(change("", "1", "2"));
        assertThat(diff("{\"a\":1}", "[1]")).containsExactly(change("", "{\"a\":1}", "[1]"));
        assertThat(diff("[1,2]", "[1,2.0]")).isEmpty();
        assertThat(diff("null", "{}")).containsExactly(change("", "null", "{}"));
    }

    @Test
    void returnsCopiesAndLeavesTheInputsAlone() {
        ObjectNode before = Json.parse("{\"a\":{\"x\":[1]}}").asObject();
        ObjectNode after = Json.parse("{\"a\":{\"x\":[2]},\"b\":{}}").asObject();

        List<FieldChange> changes = FieldDiff.between(before, after);
        ((ObjectNode) changes.get(1).after()).put("mutated", true);
        changes.get(0).after().asArray().add(3);

        assertThat(before).isEqualTo(Json.parse("{\"a\":{\"x\":[1]}}"));
        assertThat(after).isEqualTo(Json.parse("{\"a\":{\"x\":[2]},\"b\":{}}"));
        assertThatThrownBy(() -> changes.add(change("/c", "1", null))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void wireFormRoundTrips() {
        List<FieldChange> changes = diff("{\"a\":null,\"b\":1,\"c\":{\"d\":[1]}}", "{\"b\":2,\"c\":{\"d\":[2]},\"e\":\"x\"}");

        assertThat(FieldDiff.fromJson(FieldDiff.toJson(changes))).isEqualTo(changes);
        assertThat(FieldDiff.toJson(changes).get(0)).isEqualTo(Json.parse("{\"path\":\"/a\",\"kind\":\"removed\",\"before\":null}"));
    }

    @Test
    void aChangeNeedsAPathAndAtLeastOneSide() {
        assertThatThrownBy(() -> new FieldChange("/a", null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/a");
        assertThatThrownBy(() -> new FieldChange(null, NODES.nullNode(), null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void kindFollowsWhichSidesArePresent() {
        JsonNode one = NODES.numberNode(1);

        assertThat(new FieldChange("", null, one).kind()).isEqualTo(Kind.ADDED);
        assertThat(new FieldChange("", one, null).kind()).isEqualTo(Kind.REMOVED);
        assertThat(new FieldChange("", one, one).kind()).isEqualTo(Kind.CHANGED);
    }
}
