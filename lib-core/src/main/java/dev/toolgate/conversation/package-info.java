/**
 * What a conversation learns of its proposals after it made them: {@link dev.toolgate.conversation.Conversations}
 * (from {@code Toolgate.conversations()}) takes the {@link dev.toolgate.conversation.Decision}s made on a
 * conversation's proposals since its last turn, each told exactly once across every instance
 * ({@link dev.toolgate.conversation.DecisionNotes}), and finds a model's call that repeats a proposal still
 * pending or declined ({@link dev.toolgate.conversation.Repeat}). Chat adapters (Spring AI, LangChain4j) build
 * their consent loop on it; a host with its own chat loop can too.
 */
package dev.toolgate.conversation;
