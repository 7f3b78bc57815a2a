/**
 * LangChain4j adapter. {@link dev.toolgate.langchain4j.ToolgateToolProvider} offers a gate's tools to
 * {@code AiServices} per caller, with results the model can act on and mutations that wait for the
 * host's consent, and its {@code configure(AiServices)} wires the whole consent loop (every tool call
 * answered, one turn per response, decisions told back to the model);
 * {@link dev.toolgate.langchain4j.LangChain4jTools} registers existing LangChain4j
 * {@code @Tool} objects as governed tools; {@link dev.toolgate.langchain4j.ToolNames} maps qualified
 * tool names to the function names chat APIs accept.
 */
package dev.toolgate.langchain4j;
