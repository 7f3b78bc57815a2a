package dev.toolgate.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ChatToolNamesTest {

    @Test
    void qualifiedNamesBecomeReadableChatNames() {
        assertThat(ChatToolNames.chatName("incident.create")).isEqualTo("incident__create");
        assertThat(ChatToolNames.chatName("mcp:github.search_issues")).isEqualTo("mcp_github__search_issues");
        assertThat(ChatToolNames.chatName("a-b.c_d")).isEqualTo("a-b__c_d");
    }

    @Test
    void theTableMapsEveryChatNameBackToExactlyOneQualifiedName() {
        List<String> names = List.of("incident.create", "incident.list", "mcp:github.x", "docs.search");
        Map<String, String> table = ChatToolNames.assign(names);

        assertThat(table).hasSize(4);
        names.forEach(name -> assertThat(table.get(ChatToolNames.chatName(name))).isEqualTo(name));
        assertThat(table.keySet()).allMatch(chat -> ChatToolNames.CHAT_NAME.matcher(chat).matches());
        assertThat(table.values()).containsExactly("docs.search", "incident.create", "incident.list", "mcp:github.x");
    }

    @Test
    void collisionsAreAClearErrorNamingBothTools() {
        assertThatThrownBy(() -> ChatToolNames.assign(List.of("a.b", "a__b")))
                .isInstanceOf(ChatToolNameException.class)
                .hasMessageContaining("'a.b'").hasMessageContaining("'a__b'").hasMessageContaining("a__b");
        assertThatThrownBy(() -> ChatToolNames.assign(List.of("mcp:x", "mcp_x")))
                .isInstanceOf(ChatToolNameException.class).hasMessageContaining("mcp_x");
        assertThat(ChatToolNames.assign(List.of("a.b", "a.b"))).containsOnlyKeys("a__b");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a/b", "a;rm -rf", "a\"b", "a'b", "a\u0000b", "a\nb", "a\tb", "caf\u00e9",
            "\u202eevil", "\uff11", "a\u200bb", "x\ud83d\ude00", "a,b", "a(b)", "<script>", "a=b", "a\\b", "a+b", "a$b",
            "a@b", "a#b", "a%b", "a*b", "a?b", "a|b", "a~b", "a`b", "a[b]", "a{b}",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a"})
    void hostileOrTooLongNamesAreRefusedNeverRewritten(String hostile) {
        assertThatThrownBy(() -> ChatToolNames.chatName(hostile)).isInstanceOf(ChatToolNameException.class)
                .hasMessageNotContaining("\u0000").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> ChatToolNames.assign(List.of("ok.tool", hostile))).isInstanceOf(ChatToolNameException.class);
    }

    @Test
    void nullIsRefused() {
        assertThatThrownBy(() -> ChatToolNames.chatName(null)).isInstanceOf(ChatToolNameException.class);
    }

    @Test
    void exactlySixtyFourCharactersIsAccepted() {
        String name = "a".repeat(30) + "." + "b".repeat(32); // 30 + 2 + 32 = 64
        assertThat(ChatToolNames.chatName(name)).hasSize(64);
    }

    @Test
    void buildingTheProviderRefusesRegisteredToolsThatCollide() {
        Tool<?, ?> dotted = Tool.builder("a.b", NoInput.class).description("one").effect(Effect.READ)
                .execute((NoInput in, dev.toolgate.tool.ToolContext c) -> "one").build();
        Tool<?, ?> underscored = Tool.builder("a__b", NoInput.class).description("two").effect(Effect.READ)
                .execute((NoInput in, dev.toolgate.tool.ToolContext c) -> "two").build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).tools("x", dotted, underscored).build()) {
            assertThatThrownBy(() -> ToolgateToolCallbacks.builder(gate).principal(() -> Principal.user("u", "*")).build())
                    .isInstanceOf(ChatToolNameException.class)
                    .hasMessageContaining("x.a.b").hasMessageContaining("x.a__b").hasMessageContaining("x__a__b");
        }
    }
}
