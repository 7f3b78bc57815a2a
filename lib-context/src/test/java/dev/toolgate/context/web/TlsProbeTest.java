package dev.toolgate.context.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real TLS handshakes against a local HTTPS server with a certificate made by the JDK's keytool for
 * one name: the probe succeeds for that name (with SNI), and fails as TLS_FAILURE for another name
 * pointing at the same address and for a certificate it does not trust.
 */
@Timeout(60)
class TlsProbeTest {

    private static final String NAME = "api.probe-test.dev";
    private static final String OTHER = "other.probe-test.dev";
    private static final char[] PASSWORD = "changeit".toCharArray();

    @TempDir
    static Path dir;
    private static SSLContext trusting;
    private static SSLServerSocket server;
    private static final List<String> requestedNames = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startHttpsServer() throws Exception {
        Path keystore = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + NAME, "-ext", "SAN=dns:" + NAME, "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();

        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, PASSWORD);
        SSLContext serverContext = SSLContext.getInstance("TLS");
        serverContext.init(kmf.getKeyManagers(), null, null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(keys);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, tmf.getTrustManagers(), null);

        server = (SSLServerSocket) serverContext.getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        Thread accept = new Thread(TlsProbeTest::serve, "tls-server");
        accept.setDaemon(true);
        accept.start();
    }

    private static void serve() {
        while (!server.isClosed()) {
            try (SSLSocket client = (SSLSocket) server.accept()) {
                client.setSoTimeout(5_000);
                InputStream in = client.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        break;
                    }
                    head.write(b);
                }
                for (SNIServerName name : ((ExtendedSSLSession) client.getSession()).getRequestedServerNames()) {
                    requestedNames.add(new String(name.getEncoded(), StandardCharsets.US_ASCII));
                }
                OutputStream out = client.getOutputStream();
                out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nsecure"
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (Exception e) {
                // a refused handshake ends that connection; the server goes on
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static ProbeSettings.Builder local() {
        return ProbeSettings.builder()
                .resolver(host -> {
                    if (!host.equals(NAME) && !host.equals(OTHER)) {
                        throw new UnknownHostException(host);
                    }
                    return List.of(InetAddress.getByName("127.0.0.1"));
                })
                .allowLoopbackForTesting()
                .connectTimeout(Duration.ofSeconds(2))
                .totalTimeout(Duration.ofSeconds(5));
    }

    @Test
    void aCertificateForTheNameIsAcceptedAndTheNameIsSentAsSni() {
        ProbeResult result = new UrlProbe(local().sslSocketFactory(trusting.getSocketFactory()).build())
                .probe("https://" + NAME + ":" + server.getLocalPort() + "/health", ProbeMethod.GET);
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.bodySample()).isEqualTo("secure");
        assertThat(requestedNames).contains(NAME);
    }

    @Test
    void aCertificateForAnotherNameIsATlsFailure() {
        UrlProbe probe = new UrlProbe(local().sslSocketFactory(trusting.getSocketFactory()).build());
        assertThatThrownBy(() -> probe.probe("https://" + OTHER + ":" + server.getLocalPort() + "/", ProbeMethod.GET))
                .isInstanceOfSatisfying(ProbeException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProbeException.Kind.TLS_FAILURE));
    }

    @Test
    void aCertificateNobodyTrustsIsATlsFailure() {
        UrlProbe probe = new UrlProbe(local().build()); // the JDK's default trust store
        assertThatThrownBy(() -> probe.probe("https://" + NAME + ":" + server.getLocalPort() + "/", ProbeMethod.GET))
                .isInstanceOfSatisfying(ProbeException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProbeException.Kind.TLS_FAILURE));
    }
}
