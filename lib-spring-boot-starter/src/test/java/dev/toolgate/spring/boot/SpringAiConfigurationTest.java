package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.PendingProposal;
import dev.toolgate.springai.Governed;
import dev.toolgate.springai.ToolgateAdvisor;
import dev.toolgate.springai.ToolgateToolCallbacks;
import dev.toolgate.tool.Effect;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.core.context.SecurityContextHolder;

/** The Spring AI side: @Governed beans become governed tools, the callbacks follow the request's principal, ChatClients get the advisor. */
class SpringAiConfigurationTest {

    static {
        ClassesStartedFirst.now();
    }

    public static class Tickets {
        final List<String> opened = new CopyOnWriteArrayList<>();

        @Tool(description = "Opens a ticket")
        @Governed(effect = Effect.MUTATE, requires = "crm.write")
        public String openTicket(String title) {
            opened.add(title);
            return "T-" + opened.size();
        }

        @Tool(description = "Counts tickets")
        @Governed(effect = Effect.READ, requires = "crm.read")
        public int countTickets() {
            return opened.size();
        }
    }

    public static class Ungoverned {
        @Tool(description = "Deletes everything")
        public String wipe() {
            return "gone";
        }

        @Tool(description = "Reads")
        @Governed(effect = Effect.READ)
        public String read() {
            return "ok";
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ToolgateSecurityAutoConfiguration.class, ToolgateAutoConfiguration.class,
                    ToolgateSpringAiAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false", "toolgate.store=memory")
            .withBean(Incidents.class);

    @AfterEach
    void signOut() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void governedToolBeansAreRegisteredUnderThePluginId() {
        runner.withBean(Tickets.class).withPropertyValues("toolgate.spring-ai.plugin-id=crm").run(context -> {
            Toolgate gate = context.getBean(Toolgate.class);
            assertThat(gate.registry().find("crm.openTicket").orElseThrow().descriptor().effect()).isEqualTo(Effect.MUTATE);
            assertThat(gate.registry().find("crm.countTickets")).isPresent();
            assertThat(gate.registry().find("incident.list")).isPresent();
            // a governed change through the gate is a proposal, never a run
            Tickets tickets = context.getBean(Tickets.class);
            CallContext ana = CallContext.of(Principal.user("ana", "crm.write", "crm.read"));
            assertThat(gate.call(ana, "crm.openTicket", "{\"title\":\"printer\"}")).isInstanceOf(dev.toolgate.call.Proposal.class);
            assertThat(tickets.opened).isEmpty();
        });
    }

    @Test
    void aProxiedBeanIsFoundByItsClassesAnnotations() {
        runner.withBean("tickets", Tickets.class, () -> {
            ProxyFactory factory = new ProxyFactory(new Tickets());
            factory.setProxyTargetClass(true);
            return (Tickets) factory.getProxy();
        }).run(context -> assertThat(context.getBean(Toolgate.class).registry().find("app.openTicket")).isPresent());
    }

    @Test
    void aToolMethodWithoutGovernedStopsTheStart() {
        runner.withBean(Ungoverned.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreConfigurationTest.rootMessage(context.getStartupFailure())).contains("wipe");
        });
    }

    @Test
    void theCallbacksOfferWhatTheSignedInPrincipalMaySee() {
        runner.withBean(Tickets.class).run(context -> {
            ToolgateToolCallbacks callbacks = context.getBean(ToolgateToolCallbacks.class);
            assertThat(callbacks.getToolCallbacks()).isEmpty(); // nobody signed in: nothing offered
            PrincipalMappingTest.signIn("ana", "incident.read", "crm.read");
            assertThat(Arrays.stream(callbacks.getToolCallbacks()).map(c -> c.getToolDefinition().name()))
                    .containsExactlyInAnyOrder("incident__list", "app__countTickets");
            assertThat(context).hasSingleBean(ToolgateAdvisor.class).hasSingleBean(ChatClientCustomizer.class);
        });
    }

    @Test
    void withoutAPrincipalSourceNothingIsOffered() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security")).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CurrentPrincipal.class);
            assertThat(context.getBean(ToolgateToolCallbacks.class).getToolCallbacks()).isEmpty();
        });
    }

    @Test
    void withoutSpringAiTheGateStandsAlone() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.ai")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Toolgate.class);
            assertThat(context).doesNotHaveBean("toolgateToolCallbacks").doesNotHaveBean("toolgateAdvisor");
        });
    }

    @Test
    void adviseChatClientsOffLeavesChatClientsAlone() {
        runner.withPropertyValues("toolgate.spring-ai.advise-chat-clients=false")
                .run(context -> assertThat(context).doesNotHaveBean(ChatClientCustomizer.class).hasSingleBean(ToolgateAdvisor.class));
    }

    @Test
    void aChatClientFromTheCustomizedBuilderRunsTheConsentLoop() {
        runner.withBean(Tickets.class).run(context -> {
            Toolgate gate = context.getBean(Toolgate.class);
            Tickets tickets = context.getBean(Tickets.class);
            OneShotModel model = new OneShotModel(List.of(
                    new AssistantMessage.ToolCall("c1", "function", "app__openTicket", "{\"title\":\"printer\"}"),
                    new AssistantMessage.ToolCall("c2", "function", "incident__delete", "{}"),
                    new AssistantMessage.ToolCall("c3", "function", "app__countTickets", "{}")));
            ChatClient.Builder builder = ChatClient.builder(model);
            context.getBean(ChatClientCustomizer.class).customize(builder);
            PrincipalMappingTest.signIn("ana", "crm.write", "crm.read");
            builder.build().prompt("open a printer ticket").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "chat-1"))
                    .call().content();
            assertThat(model.answers).hasSize(3);
            assertThat(model.answers.get(0)).contains("\"status\":\"awaiting_operator\"");
            assertThat(model.answers.get(1)).contains("\"status\":\"unknown_tool\"");
            assertThat(model.answers.get(2)).contains("\"status\":\"executed\"");
            assertThat(tickets.opened).isEmpty();
            CallContext olga = CallContext.of(Principal.user("olga", dev.toolgate.call.GateSettings.DEFAULT_APPROVER_RULE));
            List<PendingProposal> pending = gate.pending(olga, "chat-1");
            assertThat(pending).hasSize(1);
        });
    }

    /** Sends its tool calls once, then records what it was answered. */
    static final class OneShotModel implements ChatModel {
        private final List<AssistantMessage.ToolCall> calls;
        private final AtomicInteger turns = new AtomicInteger();
        final List<String> answers = new ArrayList<>();

        OneShotModel(List<AssistantMessage.ToolCall> calls) {
            this.calls = calls;
        }

        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        @Override
        public ChatResponse call(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            if (messages.get(messages.size() - 1) instanceof ToolResponseMessage responses) {
                responses.getResponses().forEach(r -> answers.add(r.responseData()));
                return new ChatResponse(List.of(new Generation(new AssistantMessage("done"))));
            }
            if (turns.getAndIncrement() == 0) {
                return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
            }
            return new ChatResponse(List.of(new Generation(new AssistantMessage("nothing"))));
        }
    }

    static ToolCallback[] none() {
        return new ToolCallback[0];
    }
}
