package dev.toolgate.context.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How {@link UrlProbe} reads a response: the status line and headers within their limits, the body by
 * Content-Length, chunks or until close up to the cap, and a sample of it fit to show a model. Anything
 * malformed is a {@link ProbeException}.
 */
final class ProbeResponse {

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] ([1-9][0-9]{2})(?: (.*))?");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final int MAX_VALUE_CHARS = 1024;
    private static final String HEADER_LIMIT = "the status line and headers exceed " + UrlProbe.MAX_HEADER_BYTES + " bytes";
    private ProbeResponse() {
    }

    /** Reads the response to {@code method}, keeping at most {@code cap} bytes of its body. */
    static ProbeResult read(ProbeInput in, ProbeMethod method, int cap) throws IOException {
        int[] budget = {UrlProbe.MAX_HEADER_BYTES};
        int status;
        String statusText;
        Map<String, List<String>> headers;
        int interim = 0;
        while (true) {
            String line = in.line(budget, HEADER_LIMIT);
            if (line == null) {
                throw malformed("the server closed the connection without sending a response");
            }
            Matcher matcher = STATUS_LINE.matcher(line);
            if (!matcher.matches()) {
                throw malformed("the server did not answer with an HTTP/1.x status line (it began with \""
                        + sanitize(line, 40) + "\")");
            }
            status = Integer.parseInt(matcher.group(1));
            statusText = matcher.group(2) == null ? "" : sanitize(matcher.group(2), 200).strip();
            headers = headers(in, budget);
            if (status >= 200 || status == 101) {
                break;
            }
            if (++interim > 5) {
                throw malformed("the server sent more than 5 interim (1xx) responses");
            }
        }
        byte[] body = new byte[0];
        boolean truncated = false;
        if (method != ProbeMethod.HEAD && status >= 200 && status != 204 && status != 304) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            List<String> te = headers.get("transfer-encoding");
            List<String> cl = headers.get("content-length");
            if (te != null) {
                String codings = String.join(",", te).toLowerCase(Locale.ROOT);
                String[] all = codings.split(",");
                if (all[all.length - 1].strip().equals("chunked")) {
                    chunked(in, sink, cap + 1);
                } else {
                    in.untilClose(sink, cap + 1);
                }
            } else if (cl != null) {
                long length = contentLength(cl);
                long wanted = Math.min(length, cap + 1L);
                int got = in.exactly(sink, (int) wanted);
                if (got < wanted) {
                    throw malformed("the body ended after " + got + " of its " + length + " bytes");
                }
            } else {
                in.untilClose(sink, cap + 1);
            }
            body = sink.toByteArray();
            if (body.length > cap) {
                truncated = true;
                body = java.util.Arrays.copyOf(body, cap);
            }
        }
        String contentType = first(headers, "content-type");
        String location = first(headers, "location");
        Map<String, String> reported = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (UrlProbe.REPORTED_HEADERS.contains(name)) {
                reported.put(name, sanitize(String.join(", ", values), MAX_VALUE_CHARS));
            }
        });
        boolean redirected = status >= 300 && status < 400 && status != 304;
        return new ProbeResult(status, statusText, redirected,
                Optional.ofNullable(location).map(l -> sanitize(l, SsrfGuard.MAX_URL_LENGTH)),
                Optional.ofNullable(contentType).map(t -> sanitize(t, MAX_VALUE_CHARS)), reported,
                sample(body, truncated, contentType, first(headers, "content-encoding")), truncated);
    }

    private static Map<String, List<String>> headers(ProbeInput in, int[] budget) throws IOException {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        int count = 0;
        while (true) {
            String line = in.line(budget, HEADER_LIMIT);
            if (line == null) {
                throw malformed("the connection closed in the middle of the headers");
            }
            if (line.isEmpty()) {
                return headers;
            }
            if (++count > UrlProbe.MAX_HEADER_COUNT) {
                throw malformed("the response has more than " + UrlProbe.MAX_HEADER_COUNT + " headers");
            }
            if (line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                throw malformed("the response uses obsolete header line folding");
            }
            int colon = line.indexOf(':');
            if (colon <= 0 || !TOKEN.matcher(line.substring(0, colon)).matches()) {
                throw malformed("the response has a malformed header line (\"" + sanitize(line, 40) + "\")");
            }
            headers.computeIfAbsent(line.substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).strip());
        }
    }

    private static long contentLength(List<String> values) {
        long length = -1;
        for (String value : values) {
            for (String part : value.split(",")) {
                String digits = part.strip();
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    throw malformed("the response has an invalid Content-Length \"" + sanitize(value, 40) + "\"");
                }
                long parsed = Long.parseLong(digits);
                if (length >= 0 && parsed != length) {
                    throw malformed("the response has conflicting Content-Length values");
                }
                length = parsed;
            }
        }
        return length;
    }

    private static void chunked(ProbeInput in, ByteArrayOutputStream sink, int limit) throws IOException {
        while (sink.size() < limit) {
            String line = in.line(new int[] {1024}, "a chunk-size line is longer than 1024 bytes");
            if (line == null) {
                throw malformed("the chunked body ended without its last chunk");
            }
            int semicolon = line.indexOf(';');
            String hex = (semicolon < 0 ? line : line.substring(0, semicolon)).strip();
            if (hex.isEmpty() || hex.length() > 15 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw malformed("the chunked body has an invalid chunk size \"" + sanitize(line, 40) + "\"");
            }
            long size = Long.parseLong(hex, 16);
            if (size == 0) {
                return;
            }
            int wanted = (int) Math.min(size, limit - sink.size());
            int got = in.exactly(sink, wanted);
            if (got < wanted) {
                throw malformed("the chunked body ended in the middle of a chunk");
            }
            if (wanted < size) {
                return;
            }
            String end = in.line(new int[] {2}, "a chunk of the chunked body is not followed by CRLF");
            if (end == null || !end.isEmpty()) {
                throw malformed("a chunk of the chunked body is not followed by CRLF");
            }
        }
    }

    static String sample(byte[] body, boolean truncated, String contentType, String contentEncoding) {
        if (body.length == 0) {
            return "";
        }
        if (contentEncoding != null && !contentEncoding.isBlank()
                && !contentEncoding.strip().equalsIgnoreCase("identity")) {
            return "[" + sanitize(contentEncoding, 40) + "-encoded body, " + body.length + (truncated ? "+" : "")
                    + " bytes, not shown]";
        }
        if (isBinary(contentType, body)) {
            return "[binary body" + (contentType == null ? "" : " (" + sanitize(contentType, 100) + ")") + ", "
                    + body.length + (truncated ? "+" : "") + " bytes, not shown]";
        }
        int end = body.length;
        if (truncated) {
            // do not cut a multi-byte character in two
            int back = 0;
            while (back < 3 && end - back - 1 >= 0 && (body[end - back - 1] & 0xc0) == 0x80) {
                back++;
            }
            if (end - back - 1 >= 0 && (body[end - back - 1] & 0xc0) == 0xc0) {
                end = end - back - 1;
            }
        }
        return new String(body, 0, end, StandardCharsets.UTF_8);
    }

    static boolean isBinary(String contentType, byte[] body) {
        String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT).split(";")[0].strip();
        if (type.startsWith("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
                || type.contains("yaml") || type.contains("csv") || type.equals("application/x-www-form-urlencoded")) {
            return false;
        }
        if (type.startsWith("image/") || type.startsWith("audio/") || type.startsWith("video/")
                || type.startsWith("font/") || type.equals("application/octet-stream") || type.equals("application/pdf")
                || type.contains("zip") || type.contains("protobuf") || type.equals("application/wasm")) {
            return true;
        }
        int n = Math.min(body.length, 1024);
        int control = 0;
        for (int i = 0; i < n; i++) {
            int b = body[i] & 0xff;
            if (b == 0) {
                return true;
            }
            if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b) {
                control++;
            }
        }
        return control * 10 > n;
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** Control characters become spaces and the text is cut at {@code max} characters. */
    static String sanitize(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max));
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return out.toString();
    }

    static ProbeException malformed(String message) {
        return new ProbeException(ProbeException.Kind.MALFORMED_RESPONSE, "malformed response: " + message);
    }
}
