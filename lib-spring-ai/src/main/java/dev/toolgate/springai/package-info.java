/**
 * Spring AI adapter. {@link dev.toolgate.springai.ToolgateToolCallbacks} offers a gate's tools to a
 * {@code ChatClient} per principal (reads run, mutations come back as proposals, faults are results), and
 * its {@link dev.toolgate.springai.ToolgateAdvisor} makes the consent loop whole (every tool call
 * answered, one turn per response, decisions told back to the model);
 * {@link dev.toolgate.springai.SpringAiTools} turns existing Spring AI tools into governed ones, their
 * effect declared with {@link dev.toolgate.springai.Governed} or by name; {@link dev.toolgate.springai.ChatToolNames}
 * maps qualified tool names to the names chat APIs accept and back.
 */
package dev.toolgate.springai;
