package dev.toolgate.context.web;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes one HTTP/1.1 request behind the {@link SsrfGuard}: checks the URL, resolves the host once
 * with the configured {@link HostResolver}, checks every address, then connects a plain
 * {@link Socket} to the checked address itself (no proxy, no second lookup that could rebind) and,
 * for https, layers TLS over it with SNI and certificate verification against the host name.
 *
 * <p>The request carries {@code Host}, {@code User-Agent: Toolgate-probe}, {@code Accept: *}{@code /*}
 * and {@code Connection: close}, and never cookies or credentials. The response's status line and
 * headers are capped ({@value #MAX_HEADER_BYTES} bytes, {@value #MAX_HEADER_COUNT} headers); the body
 * (Content-Length, chunked, or until close) is read to at most the configured cap plus one byte and
 * then left unread. Redirects are reported, never followed. The whole probe, name resolution
 * included, ends by the total deadline: every socket read waits at most for what is left of it, and
 * the socket is closed when it passes.
 *
 * <p>Thread-safe; every failure is a {@link ProbeException} naming what went wrong.
 */
public final class UrlProbe {

    /** The most bytes of status line and headers read. */
    public static final int MAX_HEADER_BYTES = 32 * 1024;
    /** The most header lines read. */
    public static final int MAX_HEADER_COUNT = 100;

    /** The response headers reported; everything else (cookies, auth challenges, custom headers) is dropped. */
    public static final Set<String> REPORTED_HEADERS = Set.of("content-type", "content-length", "content-encoding",
            "content-language", "cache-control", "expires", "age", "etag", "last-modified", "server", "date", "vary",
            "retry-after", "location", "allow");

    private static final Logger LOG = LoggerFactory.getLogger(UrlProbe.class);
    private static final ScheduledThreadPoolExecutor WATCHDOG = watchdog();

    /** Opens the TCP connection; tests replace it to observe where the probe connects. */
    @FunctionalInterface
    interface Connector {
        void connect(Socket socket, InetSocketAddress address, int timeoutMillis) throws IOException;
    }

    private final ProbeSettings settings;
    private final Connector connector;

    /** A probe with the given settings. */
    public UrlProbe(ProbeSettings settings) {
        this(settings, Socket::connect);
    }

    UrlProbe(ProbeSettings settings, Connector connector) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.connector = Objects.requireNonNull(connector, "connector");
        if (settings.hasTestAllowance()) {
            LOG.warn("web.probeUrl runs with the TEST-ONLY address allowance; never use it in production");
        }
    }

    /**
     * Probes a URL with one request.
     *
     * @param url    an http or https URL the guard accepts
     * @param method GET or HEAD; null means GET
     * @throws UrlRefusedException if the guard refuses the URL or an address of its host
     * @throws ProbeException      for every other failure, naming what went wrong
     */
    public ProbeResult probe(String url, ProbeMethod method) {
        ProbeMethod m = method == null ? ProbeMethod.GET : method;
        long deadline = System.nanoTime() + settings.totalTimeout().toNanos();
        Target target = SsrfGuard.check(url);
        InetAddress address = target.isLiteral() ? target.literal() : resolve(target, deadline);
        String where = target.isLiteral() ? target.host() + " port " + target.port()
                : target.host() + " (" + address.getHostAddress() + ") port " + target.port();
        LOG.debug("Probing {} {}://{}", m, target.scheme(), where);

        Socket socket = new Socket(Proxy.NO_PROXY);
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
            expired.set(true);
            closeQuietly(socket);
        }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        String phase = "while connecting to " + where;
        try (socket) {
            int connectMillis = (int) Math.min(settings.connectTimeout().toMillis(), remainingMillis(deadline));
            try {
                connector.connect(socket, new InetSocketAddress(address, target.port()), connectMillis);
            } catch (SocketTimeoutException e) {
                throw new ProbeException(ProbeException.Kind.TIMEOUT, "connecting to " + where + " timed out after "
                        + describe(Duration.ofMillis(connectMillis)), e);
            } catch (SocketException e) {
                if (expired.get()) {
                    throw e;
                }
                throw new ProbeException(ProbeException.Kind.CONNECT_FAILED, "connection to " + where + " failed: "
                        + (e instanceof ConnectException ? "refused (" + e.getMessage() + ")" : e.getMessage()), e);
            }
            Socket channel = socket;
            if (target.https()) {
                phase = "during the TLS handshake with " + where;
                channel = handshake(socket, target, deadline);
            }
            phase = "while sending the request to " + where;
            OutputStream out = channel.getOutputStream();
            out.write(request(m, target).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            phase = "while reading the response of " + where;
            return ProbeResponse.read(new ProbeInput(channel, deadline), m, settings.maxBodyBytes());
        } catch (ProbeException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            if (expired.get() || e instanceof SocketTimeoutException || System.nanoTime() - deadline >= 0) {
                throw new ProbeException(ProbeException.Kind.TIMEOUT, "no complete response within "
                        + describe(settings.totalTimeout()) + ": the deadline passed " + phase, e);
            }
            if (e instanceof SSLException) {
                throw new ProbeException(ProbeException.Kind.TLS_FAILURE, "TLS failed " + phase + ": "
                        + e.getMessage(), e);
            }
            throw new ProbeException(ProbeException.Kind.IO_FAILURE, "I/O failure " + phase + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
        } finally {
            watchdog.cancel(false);
        }
    }

    private InetAddress resolve(Target target, long deadline) {
        String host = target.host();
        CompletableFuture<List<InetAddress>> lookup = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                List<InetAddress> found = settings.resolver().resolve(host);
                lookup.complete(found == null ? List.of() : new ArrayList<>(found));
            } catch (Throwable e) {
                lookup.completeExceptionally(e);
            }
        }, "toolgate-probe-resolve");
        thread.setDaemon(true);
        thread.start();
        List<InetAddress> addresses;
        try {
            addresses = lookup.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new ProbeException(ProbeException.Kind.TIMEOUT, "resolving '" + host + "' did not finish within "
                    + describe(settings.totalTimeout()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProbeException(ProbeException.Kind.IO_FAILURE, "interrupted while resolving '" + host + "'", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnknownHostException) {
                throw new ProbeException(ProbeException.Kind.DNS_FAILURE, "the host '" + host + "' does not resolve",
                        cause);
            }
            throw new ProbeException(ProbeException.Kind.DNS_FAILURE, "resolving '" + host + "' failed: "
                    + cause.getClass().getSimpleName(), cause);
        }
        return SsrfGuard.checkResolved(target, addresses, settings.allowedForTesting());
    }

    private SSLSocket handshake(Socket socket, Target target, long deadline) throws IOException {
        SSLSocket ssl = (SSLSocket) settings.sslSocketFactory().createSocket(socket, target.host(), target.port(), true);
        SSLParameters parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (!target.isLiteral()) {
            try {
                parameters.setServerNames(List.of(new SNIHostName(target.host())));
            } catch (IllegalArgumentException e) {
                LOG.debug("'{}' is not a valid SNI name; the handshake goes without explicit SNI", target.host());
            }
        }
        ssl.setSSLParameters(parameters);
        ssl.setSoTimeout(remainingMillis(deadline));
        ssl.startHandshake();
        return ssl;
    }

    static String request(ProbeMethod method, Target target) {
        return method.name() + " " + target.requestTarget() + " HTTP/1.1\r\n"
                + "Host: " + target.hostHeader() + "\r\n"
                + "User-Agent: Toolgate-probe\r\n"
                + "Accept: */*\r\n"
                + "Connection: close\r\n"
                + "\r\n";
    }

    /** The milliseconds left before {@code deadline} ({@link System#nanoTime}), or a timeout when none are. */
    static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new SocketTimeoutException("the total deadline passed");
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
    }

    private static ScheduledThreadPoolExecutor watchdog() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "toolgate-probe-deadline");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("Closing a probe socket at its deadline failed", e);
        }
    }

    static String describe(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
    }
}
