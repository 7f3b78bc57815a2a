package dev.toolgate.openapi;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the host keeps an OpenAPI document: a classpath resource, a file, a URL or a string. Read
 * again at every listing, so a changed document reaches drift review. Reads are capped: a document
 * larger than the source's limit is refused before it is parsed.
 */
abstract class DocumentLocation {

    /** Reads the document's bytes, at most {@code maxBytes}. */
    abstract byte[] read(long maxBytes, Duration timeout) throws IOException, InterruptedException;

    /** The location, for messages. */
    abstract String describe();

    /** The URL relative server URLs of the document are resolved against, or null. */
    URI base() {
        return null;
    }

    static DocumentLocation resource(String name, ClassLoader loader) {
        Objects.requireNonNull(name, "name");
        ClassLoader classLoader = loader != null ? loader : DocumentLocation.class.getClassLoader();
        return new DocumentLocation() {
            @Override
            byte[] read(long maxBytes, Duration timeout) throws IOException {
                try (InputStream in = classLoader.getResourceAsStream(name.startsWith("/") ? name.substring(1) : name)) {
                    if (in == null) {
                        throw new IOException("no classpath resource " + name);
                    }
                    return readCapped(in, maxBytes, describe());
                }
            }

            @Override
            String describe() {
                return "classpath:" + name;
            }
        };
    }

    static DocumentLocation file(Path path) {
        Objects.requireNonNull(path, "path");
        return new DocumentLocation() {
            @Override
            byte[] read(long maxBytes, Duration timeout) throws IOException {
                long size = Files.size(path);
                if (size > maxBytes) {
                    throw tooLarge(describe(), maxBytes);
                }
                try (InputStream in = Files.newInputStream(path)) {
                    return readCapped(in, maxBytes, describe());
                }
            }

            @Override
            String describe() {
                return path.toString();
            }
        };
    }

    static DocumentLocation text(String text) {
        byte[] bytes = Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8);
        return new DocumentLocation() {
            @Override
            byte[] read(long maxBytes, Duration timeout) {
                if (bytes.length > maxBytes) {
                    throw tooLarge(describe(), maxBytes);
                }
                return bytes;
            }

            @Override
            String describe() {
                return "the given text";
            }
        };
    }

    /** A document the host names by URL: fetched without following redirects, within the timeout. */
    static DocumentLocation url(URI url, HttpClient client) {
        Objects.requireNonNull(url, "url");
        String scheme = url.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || url.getHost() == null) {
            throw new IllegalArgumentException("an OpenAPI document URL must be http or https with a host, got " + url);
        }
        if (url.getUserInfo() != null) {
            throw new IllegalArgumentException("put credentials in a secret, not in the document URL");
        }
        return new DocumentLocation() {
            @Override
            byte[] read(long maxBytes, Duration timeout) throws IOException, InterruptedException {
                HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                        .header("Accept", "application/json, application/yaml, application/vnd.oai.openapi, */*;q=0.5")
                        .GET().build();
                HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream in = response.body()) {
                    if (response.statusCode() != 200) {
                        String moved = response.headers().firstValue("location")
                                .map(to -> " pointing at " + ParsedDocument.shorten(to) + " (redirects are not followed: give the final URL)")
                                .orElse("");
                        throw new IOException("GET " + url + " answered HTTP " + response.statusCode() + moved);
                    }
                    return readCapped(in, maxBytes, describe());
                }
            }

            @Override
            String describe() {
                return url.toString();
            }

            @Override
            URI base() {
                return url;
            }
        };
    }

    static byte[] readCapped(InputStream in, long maxBytes, String what) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) != -1) {
            total += n;
            if (total > maxBytes) {
                throw tooLarge(what, maxBytes);
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static OpenApiDocumentException tooLarge(String what, long maxBytes) {
        return new OpenApiDocumentException(what, "the document is larger than " + maxBytes
                + " bytes; raise OpenApiSource.Builder.maxDocumentBytes if it is trusted");
    }
}
