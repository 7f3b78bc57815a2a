package dev.toolgate.openapi;

import dev.toolgate.tool.Effect;
import java.net.URI;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * One operation of the document as a tool: how to call it and what the model sees.
 *
 * @param name        the tool name within the source
 * @param method      the HTTP method, upper case
 * @param path        the path template as the document writes it ({@code /pets/{petId}})
 * @param server      the base URL the request goes to (one the host allowed)
 * @param effect      the effect the gate governs it by
 * @param title       a short title, or null
 * @param description what the model reads
 * @param parameters  the parameters the model may set, in document order
 * @param body        the JSON request body, or null when the operation takes none
 * @param inputSchema the tool's input schema
 * @param ownServer   true if the document chose the server for this operation (its own {@code servers})
 */
record Operation(String name, String method, String path, URI server, Effect effect, String title, String description,
                 List<Parameter> parameters, Body body, ObjectNode inputSchema, boolean ownServer) {

    Operation {
        parameters = List.copyOf(parameters);
    }

    /**
     * What drift review fingerprints besides the input schema: the method, the path and the effect, and
     * the server where the document chose it. The host's own base URL is configuration, not part of
     * the document: instances that reach one API under different addresses share one review.
     */
    String contract() {
        return method + " " + (ownServer ? server.toString() : "") + path + " " + effect.wireName();
    }

    /**
     * A parameter the model sets.
     *
     * @param name     its name in the request
     * @param in       path, query or header
     * @param required true if it must be given
     * @param style    the serialization style (OpenAPI defaults applied)
     * @param explode  whether arrays and objects explode
     * @param json     true if the parameter is described by {@code content: application/json}: sent as JSON text
     */
    record Parameter(String name, String in, boolean required, String style, boolean explode, boolean json) {
    }

    /**
     * The request body.
     *
     * @param mediaType the JSON media type sent as {@code Content-Type}
     * @param required  true if the body must be given
     */
    record Body(String mediaType, boolean required) {
    }
}
