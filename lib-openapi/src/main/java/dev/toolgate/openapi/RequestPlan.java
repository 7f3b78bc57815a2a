package dev.toolgate.openapi;

import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP request a validated payload becomes, before credentials are added: method, URL, headers and
 * body, built the same way for the proposal and for the call, so an operator approves exactly what is
 * sent. Every value is percent-encoded (only RFC 3986's unreserved characters pass), so nothing the
 * model writes can add a path segment, a query parameter or a header line; path values that would
 * still move the request ({@code ..}, a slash, a control character) are refused.
 *
 * @param method    the HTTP method
 * @param url       the request URL, without credentials
 * @param headers   the headers the model's parameters set, by name
 * @param body      the body bytes, or null
 * @param mediaType the body's media type, or null
 */
record RequestPlan(String method, URI url, Map<String, String> headers, byte[] body, String mediaType) {

    /**
     * The request for validated arguments.
     *
     * @param credentialQuery the query parameters the source's credentials set: an exploded object's
     *                        keys name query parameters, and may not name one of these
     */
    static RequestPlan of(Operation operation, JsonNode arguments, Set<String> credentialQuery) {
        List<ValidationIssue> issues = new ArrayList<>();
        String path = path(operation, arguments.path("path"), issues);
        StringBuilder query = new StringBuilder();
        Map<String, String> headers = new LinkedHashMap<>();
        for (Operation.Parameter parameter : operation.parameters()) {
            JsonNode value = arguments.path(parameter.in()).get(parameter.name());
            if (value == null || value.isNull()) {
                continue;
            }
            if (parameter.in().equals("query")) {
                String taken = credentialKey(parameter, value, credentialQuery);
                if (taken != null) {
                    issues.add(ValidationIssue.at("/query/" + parameter.name(), "'" + taken + "' is the query parameter "
                            + "of the source's credential; it cannot be set"));
                } else {
                    appendQuery(query, parameter, value);
                }
            } else if (parameter.in().equals("header")) {
                String text = simple(parameter, value);
                if (!headerSafe(text)) {
                    issues.add(ValidationIssue.at("/header/" + parameter.name(), "a header value must be printable ASCII "
                            + "without line breaks"));
                } else {
                    headers.put(parameter.name(), text);
                }
            }
        }
        byte[] body = null;
        String mediaType = null;
        if (operation.body() != null && arguments.has("body") && !arguments.get("body").isMissingNode()) {
            body = Json.write(arguments.get("body")).getBytes(StandardCharsets.UTF_8);
            mediaType = operation.body().mediaType();
        }
        if (!issues.isEmpty()) {
            throw new ToolValidationException(issues);
        }
        URI url = URI.create(operation.server() + path + (query.length() == 0 ? "" : "?" + query));
        try {
            Servers.checkUnder(operation.server(), url);
        } catch (IllegalArgumentException e) {
            throw new ToolValidationException("/path", "the request URL " + e.getMessage());
        }
        return new RequestPlan(operation.method(), url, Map.copyOf(headers), body, mediaType);
    }

    /** One line for the confirm card: the method and the URL, and whether a body goes with it. */
    String describe() {
        return method + " " + url + (body == null ? "" : " with the JSON body below (" + body.length + " bytes)");
    }

    private static String path(Operation operation, JsonNode values, List<ValidationIssue> issues) {
        StringBuilder out = new StringBuilder();
        String template = operation.path();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            if (open < 0) {
                out.append(template, i, template.length());
                break;
            }
            int close = template.indexOf('}', open);
            out.append(template, i, open);
            String name = template.substring(open + 1, close);
            Operation.Parameter parameter = operation.parameters().stream()
                    .filter(p -> p.in().equals("path") && p.name().equals(name)).findFirst().orElseThrow();
            JsonNode value = values.get(name);
            String where = "/path/" + name;
            if (value == null || value.isNull()) {
                issues.add(ValidationIssue.at(where, "the path parameter is required"));
            } else {
                String refused = pathRefusal(value);
                if (refused != null) {
                    issues.add(ValidationIssue.at(where, refused));
                } else {
                    out.append(pathValue(parameter, value));
                }
            }
            i = close + 1;
        }
        return out.toString();
    }

    /** Why a path value cannot be sent, or null. Checked on each scalar before encoding. */
    private static String pathRefusal(JsonNode value) {
        List<String> scalars = new ArrayList<>();
        if (value.isContainer()) {
            value.forEach(element -> scalars.add(scalar(element)));
            value.propertyNames().forEach(scalars::add);
            if (scalars.isEmpty()) {
                return "a path value must not be empty";
            }
        } else {
            scalars.add(scalar(value));
        }
        for (String text : scalars) {
            if (text.isEmpty()) {
                return "a path value must not be empty";
            }
            if (text.equals(".") || text.equals("..")) {
                return "a path value must not be '.' or '..'";
            }
            if (text.indexOf('/') >= 0 || text.indexOf('\\') >= 0) {
                return "a path value must not contain a slash or a backslash";
            }
            if (text.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                return "a path value must not contain control characters";
            }
        }
        return null;
    }

    private static String pathValue(Operation.Parameter parameter, JsonNode value) {
        return switch (parameter.style()) {
            case "label" -> "." + join(parameter, value, parameter.explode() ? "." : ",", parameter.explode() ? "=" : ",");
            case "matrix" -> matrix(parameter, value);
            default -> join(parameter, value, ",", parameter.explode() ? "=" : ",");
        };
    }

    private static String matrix(Operation.Parameter parameter, JsonNode value) {
        String name = encode(parameter.name());
        if (parameter.json() || !value.isContainer()) {
            return ";" + name + "=" + encode(parameter.json() ? Json.write(value) : scalar(value));
        }
        if (value.isArray()) {
            if (!parameter.explode()) {
                return ";" + name + "=" + join(parameter, value, ",", ",");
            }
            StringBuilder out = new StringBuilder();
            value.forEach(element -> out.append(';').append(name).append('=').append(encode(scalar(element))));
            return out.toString();
        }
        if (!parameter.explode()) {
            return ";" + name + "=" + join(parameter, value, ",", ",");
        }
        StringBuilder out = new StringBuilder();
        value.properties().forEach(e -> out.append(';').append(encode(e.getKey())).append('=').append(encode(scalar(e.getValue()))));
        return out.toString();
    }

    /** Simple style: scalars as text, arrays joined by {@code between}, objects as key{@code pair}value. */
    private static String join(Operation.Parameter parameter, JsonNode value, String between, String pair) {
        if (parameter.json()) {
            return encode(Json.write(value));
        }
        if (value.isArray()) {
            List<String> parts = new ArrayList<>();
            value.forEach(element -> parts.add(encode(scalar(element))));
            return String.join(between, parts);
        }
        if (value.isObject()) {
            List<String> parts = new ArrayList<>();
            value.properties().forEach(e -> parts.add(encode(e.getKey()) + pair + encode(scalar(e.getValue()))));
            return String.join(between, parts);
        }
        return encode(scalar(value));
    }

    /**
     * The key of an object value that would be sent as a query parameter of its own named like a
     * credential's (an exploded form, space- or pipe-delimited object), or null.
     */
    private static String credentialKey(Operation.Parameter parameter, JsonNode value, Set<String> credentialQuery) {
        if (parameter.json() || !value.isObject() || !parameter.explode() || parameter.style().equals("deepObject")) {
            return null;
        }
        for (String key : value.propertyNames()) {
            if (credentialQuery.contains(key)) {
                return key;
            }
        }
        return null;
    }

    private static void appendQuery(StringBuilder query, Operation.Parameter parameter, JsonNode value) {
        String name = encode(parameter.name());
        List<String> pairs = new ArrayList<>();
        if (parameter.json() || !value.isContainer()) {
            pairs.add(name + "=" + encode(parameter.json() ? Json.write(value) : scalar(value)));
        } else if (value.isArray()) {
            String delimiter = switch (parameter.style()) {
                case "spaceDelimited" -> "%20";
                case "pipeDelimited" -> "%7C";
                default -> ",";
            };
            if (parameter.explode()) {
                value.forEach(element -> pairs.add(name + "=" + encode(scalar(element))));
            } else {
                List<String> parts = new ArrayList<>();
                value.forEach(element -> parts.add(encode(scalar(element))));
                pairs.add(name + "=" + String.join(delimiter, parts));
            }
        } else if (parameter.style().equals("deepObject")) {
            value.properties().forEach(e -> pairs.add(name + "%5B" + encode(e.getKey()) + "%5D=" + encode(scalar(e.getValue()))));
        } else if (parameter.explode()) {
            value.properties().forEach(e -> pairs.add(encode(e.getKey()) + "=" + encode(scalar(e.getValue()))));
        } else {
            List<String> parts = new ArrayList<>();
            value.properties().forEach(e -> parts.add(encode(e.getKey()) + "," + encode(scalar(e.getValue()))));
            pairs.add(name + "=" + String.join(",", parts));
        }
        for (String pair : pairs) {
            if (query.length() > 0) {
                query.append('&');
            }
            query.append(pair);
        }
    }

    private static String simple(Operation.Parameter parameter, JsonNode value) {
        if (parameter.json()) {
            return Json.write(value);
        }
        if (value.isArray()) {
            List<String> parts = new ArrayList<>();
            value.forEach(element -> parts.add(scalar(element)));
            return String.join(",", parts);
        }
        if (value.isObject()) {
            List<String> parts = new ArrayList<>();
            value.properties().forEach(e -> parts.add(e.getKey() + (parameter.explode() ? "=" : ",") + scalar(e.getValue())));
            return String.join(",", parts);
        }
        return scalar(value);
    }

    /** A scalar as text; a nested container as its JSON text. */
    private static String scalar(JsonNode value) {
        if (value == null || value.isNull()) {
            return "";
        }
        return value.isValueNode() ? value.asString() : Json.write(value);
    }

    private static boolean headerSafe(String text) {
        return text.chars().allMatch(c -> c == '\t' || c >= 0x20 && c < 0x7f) && !text.isEmpty();
    }

    /** Percent-encodes everything but RFC 3986's unreserved characters, as UTF-8. */
    static String encode(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
