package dev.toolgate.context.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Probes against a scripted local server, reached through the injected resolver and the test-only
 * loopback allowance: a public-looking name points at 127.0.0.1 while every check stays on. The time
 * bounds only prove nothing hangs.
 */
@Timeout(60)
class UrlProbeTest {

    static final String NAME = "api.probe-test.dev";
    static final Duration GENEROUS = Duration.ofSeconds(15);

    private final List<LocalServer> servers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopServers() throws IOException {
        for (LocalServer server : servers) {
            server.close();
        }
    }

    private LocalServer serve(LocalServer.Handler handler) throws IOException {
        LocalServer server = LocalServer.start(handler);
        servers.add(server);
        return server;
    }

    private LocalServer serveRaw(LocalServer.Handler handler) throws IOException {
        LocalServer server = LocalServer.raw(handler);
        servers.add(server);
        return server;
    }

    static ProbeSettings.Builder local() {
        return ProbeSettings.builder()
                .resolver(host -> {
                    if (!host.equals(NAME)) {
                        throw new UnknownHostException(host);
                    }
                    return List.of(InetAddress.getByName("127.0.0.1"));
                })
                .allowLoopbackForTesting()
                .connectTimeout(Duration.ofSeconds(2))
                .totalTimeout(Duration.ofSeconds(3));
    }

    static String url(LocalServer server, String path) {
        return "http://" + NAME + ":" + server.port() + path;
    }

    static String response(String head, String body) {
        return head + "\r\n\r\n" + body;
    }

    // ---------------------------------------------------------------- what works

    @Test
    void getReportsStatusTheSafeHeadersAndTheBody() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\n"
                + "Content-Type: application/json; charset=utf-8\r\nContent-Length: 15\r\n"
                + "Set-Cookie: session=abc123; HttpOnly\r\nSet-Cookie: other=1\r\nWWW-Authenticate: Basic realm=x\r\n"
                + "X-Internal-Token: t0k3n\r\nServer: test\r\nCache-Control: no-store\r\nETag: \"v1\"\r\n"
                + "Vary: Accept\r\nVary: Origin", "{\"status\":\"up\"}")));

        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/status?verbose=1#top"), ProbeMethod.GET);

        assertThat(result.status()).isEqualTo(200);
        assertThat(result.statusText()).isEqualTo("OK");
        assertThat(result.redirected()).isFalse();
        assertThat(result.location()).isEmpty();
        assertThat(result.contentType()).contains("application/json; charset=utf-8");
        assertThat(result.bodySample()).isEqualTo("{\"status\":\"up\"}");
        assertThat(result.bodyTruncated()).isFalse();
        assertThat(result.headers()).containsOnlyKeys("content-type", "content-length", "server", "cache-control", "etag",
                "vary");
        assertThat(result.headers()).containsEntry("vary", "Accept, Origin");
        assertThat(result.toString()).doesNotContain("abc123", "t0k3n", "realm");

        String request = server.requests().get(0);
        assertThat(request).startsWith("GET /status?verbose=1 HTTP/1.1\r\n")
                .contains("Host: " + NAME + ":" + server.port() + "\r\n", "User-Agent: Toolgate-probe\r\n",
                        "Accept: */*\r\n", "Connection: close\r\n")
                .doesNotContainIgnoringCase("cookie").doesNotContainIgnoringCase("authorization")
                .doesNotContain("#top");
        assertThat(server.connections()).isEqualTo(1);
    }

    @Test
    void headReadsNoBody() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                + "Content-Length: 5000", "")));

        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.HEAD);

        assertThat(server.requests().get(0)).startsWith("HEAD / HTTP/1.1\r\n");
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.headers()).containsEntry("content-length", "5000");
        assertThat(result.bodySample()).isEmpty();
        assertThat(result.bodyTruncated()).isFalse();
    }

    @Test
    void aNullMethodMeansGet() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 204 No Content", "")));
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), null);
        assertThat(server.requests().get(0)).startsWith("GET / HTTP/1.1");
        assertThat(result.status()).isEqualTo(204);
        assertThat(result.bodySample()).isEmpty();
    }

    @Test
    void aLongBodyIsCutAtTheCapAndMarkedTruncated() throws IOException {
        String body = "x".repeat(1000);
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 1000", body)));

        ProbeResult result = new UrlProbe(local().maxBodyBytes(100).build()).probe(url(server, "/"), ProbeMethod.GET);

        assertThat(result.bodySample()).isEqualTo("x".repeat(100));
        assertThat(result.bodyTruncated()).isTrue();
    }

    @Test
    void aBodyOfExactlyTheCapIsNotTruncated() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Type: text/plain",
                "y".repeat(100))));
        ProbeResult result = new UrlProbe(local().maxBodyBytes(100).build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.bodySample()).hasSize(100);
        assertThat(result.bodyTruncated()).isFalse();
    }

    @Test
    void aChunkedBodyIsDecoded() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + "Transfer-Encoding: chunked", "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n")));

        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);

        assertThat(result.bodySample()).isEqualTo("hello, world");
        assertThat(result.bodyTruncated()).isFalse();
    }

    @Test
    void anEndlessChunkedBodyStopsAtTheCap() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            while (!s.isClosed()) {
                out.write("10\r\n0123456789abcdef\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        });

        long start = System.nanoTime();
        ProbeResult result = new UrlProbe(local().maxBodyBytes(40).build()).probe(url(server, "/"), ProbeMethod.GET);

        assertThat(result.bodySample()).isEqualTo("0123456789abcdef0123456789abcdef01234567");
        assertThat(result.bodyTruncated()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
    }

    @Test
    void aBinaryBodyIsNamedNotDumped() throws IOException {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
        LocalServer server = serve((request, out, s) -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: " + png.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(png);
        });

        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/logo.png"), ProbeMethod.GET);

        assertThat(result.bodySample()).isEqualTo("[binary body (image/png), 16 bytes, not shown]");
        assertThat(result.bodySample()).doesNotContain("PNG");
    }

    @Test
    void aBodyWithoutContentTypeIsSniffed() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[] {1, 2, 0, 3, 4, 5, 6, 7});
        });
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.bodySample()).startsWith("[binary body, 8 bytes");
    }

    @Test
    void invalidUtf8IsReplacedAndACutCharacterIsDropped() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[] {'a', (byte) 0xff, 'b'});
            out.write("ééé".getBytes(StandardCharsets.UTF_8));
        });
        ProbeResult result = new UrlProbe(local().maxBodyBytes(6).build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.bodySample()).isEqualTo("a\uFFFDbé");
        assertThat(result.bodyTruncated()).isTrue();
    }

    @Test
    void aHugeDeclaredBodyIsReadOnlyToTheCap() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10737418240\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] block = "z".repeat(8192).getBytes(StandardCharsets.US_ASCII);
            while (!s.isClosed()) {
                out.write(block);
            }
        });

        long start = System.nanoTime();
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/big"), ProbeMethod.GET);

        assertThat(result.bodySample()).hasSize(16 * 1024);
        assertThat(result.bodyTruncated()).isTrue();
        assertThat(result.headers()).containsEntry("content-length", "10737418240");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
    }

    @Test
    void aResponseThatNeverEndsIsReadOnlyToTheCap() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            while (!s.isClosed()) {
                out.write("data: tick\n\n".getBytes(StandardCharsets.US_ASCII));
            }
        });

        long start = System.nanoTime();
        ProbeResult result = new UrlProbe(local().maxBodyBytes(1000).build()).probe(url(server, "/events"),
                ProbeMethod.GET);

        assertThat(result.bodySample()).hasSize(1000).startsWith("data: tick");
        assertThat(result.bodyTruncated()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
    }

    @Test
    void interimResponsesAreSkipped() throws IOException {
        LocalServer server = serve(LocalServer.answer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
                + "Link: </a.css>\r\n\r\n" + response("HTTP/1.1 200 OK\r\nContent-Length: 2", "ok")));
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.bodySample()).isEqualTo("ok");
    }

    @Test
    void statusWithoutReasonAndHttp10Work() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.0 503\r\nRetry-After: 120", "down")));
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.status()).isEqualTo(503);
        assertThat(result.statusText()).isEmpty();
        assertThat(result.headers()).containsEntry("retry-after", "120");
        assertThat(result.bodySample()).isEqualTo("down");
    }

    // ---------------------------------------------------------------- redirects are reported, not followed

    @Test
    void aRedirectToCloudMetadataIsReportedNotFollowed() throws IOException {
        List<InetSocketAddress> connected = new CopyOnWriteArrayList<>();
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 302 Found\r\n"
                + "Location: http://169.254.169.254/latest/meta-data/iam/security-credentials/\r\nContent-Length: 0", "")));
        UrlProbe probe = new UrlProbe(local().build(), (socket, address, timeout) -> {
            connected.add(address);
            socket.connect(address, timeout);
        });

        ProbeResult result = probe.probe(url(server, "/go"), ProbeMethod.GET);

        assertThat(result.status()).isEqualTo(302);
        assertThat(result.redirected()).isTrue();
        assertThat(result.location()).contains("http://169.254.169.254/latest/meta-data/iam/security-credentials/");
        assertThat(result.headers()).containsKey("location");
        assertThat(connected).singleElement()
                .satisfies(a -> assertThat(a.getAddress().getHostAddress()).isEqualTo("127.0.0.1"));
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void aRedirectBackToTheLocalServerIsNotFollowedEither() throws IOException {
        AtomicInteger port = new AtomicInteger();
        LocalServer server = serve((request, out, s) -> out.write(response("HTTP/1.1 301 Moved Permanently\r\n"
                + "Location: http://127.0.0.1:" + port.get() + "/admin", "").getBytes(StandardCharsets.US_ASCII)));
        port.set(server.port());

        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);

        assertThat(result.redirected()).isTrue();
        assertThat(result.location()).contains("http://127.0.0.1:" + server.port() + "/admin");
        assertThat(server.connections()).isEqualTo(1);
        assertThat(server.requests()).noneMatch(r -> r.contains("/admin"));
    }

    @Test
    void notModifiedIsNotARedirect() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 304 Not Modified\r\nETag: \"a\"", "")));
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.status()).isEqualTo(304);
        assertThat(result.redirected()).isFalse();
    }

    // ---------------------------------------------------------------- rebinding and the allowance

    @Test
    void theNameIsResolvedOnceAndTheConnectionGoesToTheCheckedAddress() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 2", "ok")));
        AtomicInteger lookups = new AtomicInteger();
        HostResolver rebinding = host -> List.of(InetAddress.getByName(
                lookups.incrementAndGet() == 1 ? "93.184.216.34" : "127.0.0.1"));
        List<InetSocketAddress> connected = new CopyOnWriteArrayList<>();
        // no allowance: the first answer is public; the connector records where the probe connects
        // and, since the test is offline, carries the connection to the local server
        UrlProbe probe = new UrlProbe(ProbeSettings.builder().resolver(rebinding).totalTimeout(Duration.ofSeconds(3))
                .build(), (socket, address, timeout) -> {
                    connected.add(address);
                    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), timeout);
                });

        ProbeResult result = probe.probe("http://rebind.example.com:" + server.port() + "/", ProbeMethod.GET);

        assertThat(result.status()).isEqualTo(200);
        assertThat(lookups).hasValue(1);
        assertThat(connected).singleElement().satisfies(a -> {
            assertThat(a.getAddress().getHostAddress()).isEqualTo("93.184.216.34");
            assertThat(a.isUnresolved()).isFalse();
        });
        assertThat(server.requests().get(0)).contains("Host: rebind.example.com:" + server.port());
    }

    @Test
    void aRebindingNameThatTurnsPrivateOnTheSecondLookupIsNeverLookedUpTwice() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 2", "ok")));
        AtomicInteger lookups = new AtomicInteger();
        ProbeSettings settings = local().resolver(host -> List.of(InetAddress.getByName(
                lookups.incrementAndGet() == 1 ? "127.0.0.1" : "10.0.0.1"))).build();

        ProbeResult result = new UrlProbe(settings).probe(url(server, "/"), ProbeMethod.GET);

        assertThat(result.status()).isEqualTo(200);
        assertThat(lookups).hasValue(1);
        assertThat(server.connections()).isEqualTo(1);
    }

    @Test
    void theAllowanceOpensNeitherLiteralsNorOtherInternalAddresses() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 2", "ok")));
        UrlProbe probe = new UrlProbe(local().build());
        assertThatThrownBy(() -> probe.probe("http://127.0.0.1:" + server.port() + "/", ProbeMethod.GET))
                .isInstanceOf(UrlRefusedException.class).hasMessageContaining("loopback");
        assertThatThrownBy(() -> probe.probe("http://localhost:" + server.port() + "/", ProbeMethod.GET))
                .isInstanceOf(UrlRefusedException.class).hasMessageContaining("internal name");
        UrlProbe privateToo = new UrlProbe(local().resolver(host -> List.of(InetAddress.getByName("127.0.0.1"),
                InetAddress.getByName("192.168.0.10"))).build());
        assertThatThrownBy(() -> privateToo.probe(url(server, "/"), ProbeMethod.GET))
                .isInstanceOf(UrlRefusedException.class).hasMessageContaining("192.168.0.10");
        assertThat(server.connections()).isZero();
    }

    @Test
    void withoutTheAllowanceTheLocalServerIsUnreachable() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 2", "ok")));
        ProbeSettings settings = ProbeSettings.builder().resolver(host -> List.of(InetAddress.getByName("127.0.0.1")))
                .build();
        assertThat(settings.hasTestAllowance()).isFalse();
        assertThatThrownBy(() -> new UrlProbe(settings).probe(url(server, "/"), ProbeMethod.GET))
                .isInstanceOf(UrlRefusedException.class)
                .hasMessage("URL refused: '" + NAME + "' resolves to a loopback address (127/8) 127.0.0.1");
        assertThat(server.connections()).isZero();
    }

    // ---------------------------------------------------------------- failures end typed and in time

    private static void assertFails(UrlProbe probe, String url, ProbeException.Kind kind, String message) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> probe.probe(url, ProbeMethod.GET))
                .isInstanceOfSatisfying(ProbeException.class, e -> assertThat(e.kind()).isEqualTo(kind))
                .hasMessageContaining(message);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("ended in time").isLessThan(GENEROUS);
    }

    @Test
    void aSlowDripEndsAtTheTotalDeadline() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            while (!s.isClosed()) {
                out.write('.');
                out.flush();
                Thread.sleep(1000);
            }
        });
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.TIMEOUT,
                "no complete response within 3 s: the deadline passed while reading the response of " + NAME);
    }

    @Test
    void aSlowDripOfHeadersEndsAtTheTotalDeadline() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            byte[] head = "HTTP/1.1 200 OK\r\nX-Pad: ".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; !s.isClosed(); i++) {
                out.write(i < head.length ? head[i] : 'a');
                out.flush();
                Thread.sleep(500);
            }
        });
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.TIMEOUT, "within 3 s");
    }

    @Test
    void aServerThatAcceptsAndNeverAnswersTimesOut() throws IOException {
        LocalServer server = serve((request, out, s) -> s.hold(30));
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.TIMEOUT, "within 3 s");
    }

    @Test
    void aRefusedConnectionIsAConnectFailure() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        assertFails(new UrlProbe(local().build()), "http://" + NAME + ":" + port + "/", ProbeException.Kind.CONNECT_FAILED,
                "connection to " + NAME + " (127.0.0.1) port " + port + " failed: refused");
    }

    @Test
    void aConnectTimeoutIsATimeout() {
        UrlProbe probe = new UrlProbe(local().build(), (socket, address, timeout) -> {
            throw new java.net.SocketTimeoutException("connect timed out");
        });
        assertFails(probe, "http://" + NAME + ":81/", ProbeException.Kind.TIMEOUT, "timed out after 2 s");
    }

    @Test
    void anUnknownNameIsADnsFailure() {
        assertFails(new UrlProbe(local().build()), "http://nowhere.example.com/", ProbeException.Kind.DNS_FAILURE,
                "the host 'nowhere.example.com' does not resolve");
    }

    @Test
    void aResolverThatHangsEndsAtTheDeadline() {
        UrlProbe probe = new UrlProbe(local().resolver(host -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
        }).build());
        assertFails(probe, "http://slow-dns.example.com/", ProbeException.Kind.TIMEOUT,
                "resolving 'slow-dns.example.com' did not finish within 3 s");
    }

    @Test
    void tlsToAServerThatDoesNotSpeakItIsATlsFailure() throws IOException {
        LocalServer server = serveRaw((request, out, s) -> {
            out.write(response("HTTP/1.1 400 Bad Request\r\nContent-Length: 0", "").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.hold(5);
        });
        assertFails(new UrlProbe(local().build()), "https://" + NAME + ":" + server.port() + "/",
                ProbeException.Kind.TLS_FAILURE, "TLS failed during the TLS handshake with " + NAME + " (127.0.0.1) port " + server.port());
    }

    @Test
    void tlsGoesOverTheCheckedSocketWithSniAndHostNameVerification() throws IOException {
        LocalServer server = serveRaw((request, out, s) -> {
            out.write("not tls\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.hold(5);
        });
        SSLSocketFactory real = (SSLSocketFactory) SSLSocketFactory.getDefault();
        List<SSLSocket> created = new CopyOnWriteArrayList<>();
        List<String> layered = new CopyOnWriteArrayList<>();
        SSLSocketFactory recording = new SSLSocketFactory() {
            @Override
            public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
                layered.add(host + ":" + port + " over " + s.getInetAddress().getHostAddress() + " connected="
                        + s.isConnected() + " autoClose=" + autoClose);
                SSLSocket ssl = (SSLSocket) real.createSocket(s, host, port, autoClose);
                created.add(ssl);
                return ssl;
            }

            @Override
            public String[] getDefaultCipherSuites() {
                return real.getDefaultCipherSuites();
            }

            @Override
            public String[] getSupportedCipherSuites() {
                return real.getSupportedCipherSuites();
            }

            @Override
            public Socket createSocket(String host, int port) {
                throw new AssertionError("the probe must never let TLS resolve and connect by itself");
            }

            @Override
            public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
                throw new AssertionError("the probe must never let TLS resolve and connect by itself");
            }

            @Override
            public Socket createSocket(InetAddress host, int port) {
                throw new AssertionError("the probe must never let TLS connect by itself");
            }

            @Override
            public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
                throw new AssertionError("the probe must never let TLS connect by itself");
            }
        };

        assertFails(new UrlProbe(local().sslSocketFactory(recording).build()),
                "https://" + NAME + ":" + server.port() + "/", ProbeException.Kind.TLS_FAILURE, "TLS failed");

        assertThat(layered).containsExactly(NAME + ":" + server.port() + " over 127.0.0.1 connected=true autoClose=true");
        SSLParameters parameters = created.get(0).getSSLParameters();
        assertThat(parameters.getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
        assertThat(parameters.getServerNames()).containsExactly(new SNIHostName(NAME));
    }

    @Test
    void aCompressedBodyIsNamedNotDumped() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                + "Content-Encoding: gzip\r\nContent-Length: 4", "\u001f\u008b\u0008\u0000")));
        ProbeResult result = new UrlProbe(local().build()).probe(url(server, "/"), ProbeMethod.GET);
        assertThat(result.bodySample()).isEqualTo("[gzip-encoded body, 4 bytes, not shown]");
        assertThat(result.headers()).containsEntry("content-encoding", "gzip");
    }

    @Test
    void aTlsServerThatNeverAnswersTheHandshakeTimesOut() throws IOException {
        LocalServer server = serveRaw((request, out, s) -> s.hold(30));
        assertFails(new UrlProbe(local().build()), "https://" + NAME + ":" + server.port() + "/",
                ProbeException.Kind.TIMEOUT, "the deadline passed during the TLS handshake with " + NAME);
    }

    @Test
    void garbageIsAMalformedResponse() throws IOException {
        LocalServer server = serve(LocalServer.answer("SSH-2.0-OpenSSH_9.6\r\n"));
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "did not answer with an HTTP/1.x status line (it began with \"SSH-2.0-OpenSSH_9.6\")");
    }

    @Test
    void anEmptyAnswerIsAMalformedResponse() throws IOException {
        LocalServer server = serve(LocalServer.answer(""));
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "closed the connection without sending a response");
    }

    @Test
    void headersOverTheCapAreAMalformedResponse() throws IOException {
        LocalServer server = serve((request, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 1000 && !s.isClosed(); i++) {
                out.write(("X-Filler-" + i + ": " + "f".repeat(100) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
        });
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "more than 100 headers");
        LocalServer wide = serve((request, out, s) -> out.write(("HTTP/1.1 200 OK\r\nX-Wide: " + "w".repeat(40_000)
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
        assertFails(new UrlProbe(local().build()), url(wide, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "exceed 32768 bytes");
    }

    @Test
    void aShortBodyIsAMalformedResponse() throws IOException {
        LocalServer server = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 50", "short")));
        assertFails(new UrlProbe(local().build()), url(server, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "the body ended after 5 of its 50 bytes");
    }

    @Test
    void conflictingLengthsAndBadChunksAreMalformed() throws IOException {
        LocalServer lengths = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                + "Content-Length: 6", "hello!")));
        assertFails(new UrlProbe(local().build()), url(lengths, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "conflicting Content-Length");
        LocalServer chunks = serve(LocalServer.answer(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked",
                "zz\r\nhello\r\n0\r\n\r\n")));
        assertFails(new UrlProbe(local().build()), url(chunks, "/"), ProbeException.Kind.MALFORMED_RESPONSE,
                "invalid chunk size");
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> ProbeSettings.builder().maxBodyBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProbeSettings.builder().maxBodyBytes(ProbeSettings.MAX_BODY_BYTES_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProbeSettings.builder().totalTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProbeSettings.builder().connectTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        ProbeSettings defaults = ProbeSettings.defaults();
        assertThat(defaults.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.totalTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.maxBodyBytes()).isEqualTo(16 * 1024);
        assertThat(defaults.hasTestAllowance()).isFalse();
    }

    @SuppressWarnings("unused")
    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.US_ASCII));
    }
}
