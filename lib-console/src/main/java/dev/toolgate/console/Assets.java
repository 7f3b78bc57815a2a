package dev.toolgate.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The page's files, read once from the jar; served with a content hash as ETag. The page names how
 * this console signs people in ({@code <meta name="toolgate-sign-in" content="console|host">}), so the
 * script knows before its first request whether it may ever show its sign-in form.
 */
final class Assets {

    static final String ROOT = "dev/toolgate/console/assets/";
    static final String SIGN_IN_META = "<meta name=\"toolgate-sign-in\" content=\"" + HostSignIn.CONSOLE + "\">";

    record Asset(String type, byte[] bytes, String etag) {
    }

    private static final Map<String, String> TYPES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "console.css", "text/css; charset=utf-8",
            "favicon.svg", "image/svg+xml");

    private final Map<String, Asset> assets = new HashMap<>();

    /** @param signIn {@link HostSignIn#HOST} or {@link HostSignIn#CONSOLE}, written into the page */
    Assets(String signIn) {
        for (Map.Entry<String, String> entry : TYPES.entrySet()) {
            try (InputStream in = Assets.class.getClassLoader().getResourceAsStream(ROOT + entry.getKey())) {
                if (in == null) {
                    throw new IllegalStateException("The console's asset " + ROOT + entry.getKey()
                            + " is missing from the classpath");
                }
                byte[] bytes = in.readAllBytes();
                if (entry.getKey().equals("index.html")) {
                    bytes = withSignIn(bytes, signIn);
                }
                assets.put(entry.getKey(), new Asset(entry.getValue(), bytes,
                        "\"" + InboxApi.sha256(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1)).substring(0, 24) + "\""));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static byte[] withSignIn(byte[] page, String signIn) {
        String html = new String(page, java.nio.charset.StandardCharsets.UTF_8);
        if (!html.contains(SIGN_IN_META)) {
            throw new IllegalStateException("The console's index.html lacks " + SIGN_IN_META);
        }
        return html.replace(SIGN_IN_META, SIGN_IN_META.replace(HostSignIn.CONSOLE, signIn))
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    Optional<Asset> find(String name) {
        return Optional.ofNullable(assets.get(name));
    }

    ConsoleResponse serve(ConsoleRequest request, String name) {
        Asset asset = find(name).orElseThrow(ConsoleException::notFound);
        ConsoleResponse.Headers headers = Responses.secured()
                .set("Content-Type", asset.type())
                .set("Cache-Control", "no-cache")
                .set("ETag", asset.etag());
        if (request.headers("If-None-Match").stream().anyMatch(v -> v.trim().equals(asset.etag()))) {
            return Responses.empty(304, headers);
        }
        return new ConsoleResponse(200, headers.map(), asset.bytes());
    }
}
