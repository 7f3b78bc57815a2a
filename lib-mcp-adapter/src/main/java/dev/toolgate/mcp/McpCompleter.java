package dev.toolgate.mcp;

import dev.toolgate.access.Principal;
import java.util.List;
import java.util.Map;

/**
 * Suggests values for one argument of a prompt or one variable of a resource template
 * ({@code completion/complete}). It runs only for a principal who may see the prompt or template,
 * with that principal; at most 100 values are sent ({@code hasMore} tells the client there were more).
 */
@FunctionalInterface
public interface McpCompleter {

    /**
     * Values for {@code request.value()}, best first. An exception becomes a JSON-RPC internal error
     * (-32603) without its message; it is logged.
     */
    List<String> complete(Request request) throws Exception;

    /**
     * What the client asks to complete.
     *
     * @param principal the principal of the request
     * @param argument  the argument (or template variable) name
     * @param value     what the user has typed so far (may be empty)
     * @param context   values of other arguments the client already knows (may be empty)
     */
    record Request(Principal principal, String argument, String value, Map<String, String> context) {

        public Request {
            context = Map.copyOf(context);
        }
    }
}
