package dev.toolgate.context.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.[01] ([1-9][0-9]{2})(?: (.*))?");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final int MAX_VALUE_CHARS = 1024;
    private static final String HEADER_LIMIT = "the status line and headers exceed " + MAX_HEADER_BYTES + " bytes";
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
            return read(new Input(channel, deadline), m);
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

    // ---------------------------------------------------------------- the response

    private ProbeResult read(Input in, ProbeMethod method) throws IOException {
        int[] budget = {MAX_HEADER_BYTES};
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
        int cap = settings.maxBodyBytes();
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
            if (REPORTED_HEADERS.contains(name)) {
                reported.put(name, sanitize(String.join(", ", values), MAX_VALUE_CHARS));
            }
        });
        boolean redirected = status >= 300 && status < 400 && status != 304;
        return new ProbeResult(status, statusText, redirected,
                Optional.ofNullable(location).map(l -> sanitize(l, SsrfGuard.MAX_URL_LENGTH)),
                Optional.ofNullable(contentType).map(t -> sanitize(t, MAX_VALUE_CHARS)), reported,
                sample(body, truncated, contentType, first(headers, "content-encoding")), truncated);
    }

    private static Map<String, List<String>> headers(Input in, int[] budget) throws IOException {
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
            if (++count > MAX_HEADER_COUNT) {
                throw malformed("the response has more than " + MAX_HEADER_COUNT + " headers");
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

    private static void chunked(Input in, ByteArrayOutputStream sink, int limit) throws IOException {
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

    private static ProbeException malformed(String message) {
        return new ProbeException(ProbeException.Kind.MALFORMED_RESPONSE, "malformed response: " + message);
    }

    private static int remainingMillis(long deadline) throws SocketTimeoutException {
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

    /** Buffered reading where every wait is bounded by what is left of the deadline. */
    private static final class Input {
        private final Socket socket;
        private final InputStream in;
        private final long deadline;
        private final byte[] buffer = new byte[8192];
        private int pos;
        private int len;

        Input(Socket socket, long deadline) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.deadline = deadline;
        }

        private boolean fill() throws IOException {
            if (pos < len) {
                return true;
            }
            socket.setSoTimeout(remainingMillis(deadline));
            int n = in.read(buffer);
            if (n <= 0) {
                return false;
            }
            pos = 0;
            len = n;
            return true;
        }

        /** A line without its CR LF, null at end of stream before any byte; counts against {@code budget[0]}. */
        String line(int[] budget, String limitMessage) throws IOException {
            StringBuilder line = new StringBuilder();
            boolean any = false;
            while (true) {
                if (!fill()) {
                    if (!any) {
                        return null;
                    }
                    throw malformed("the connection closed in the middle of a line");
                }
                int b = buffer[pos++] & 0xff;
                any = true;
                if (--budget[0] < 0) {
                    throw malformed(limitMessage);
                }
                if (b == '\n') {
                    int l = line.length();
                    if (l > 0 && line.charAt(l - 1) == '\r') {
                        line.setLength(l - 1);
                    }
                    return line.toString();
                }
                line.append((char) b);
            }
        }

        /** Copies up to {@code n} bytes; returns how many arrived before the end of the stream. */
        int exactly(ByteArrayOutputStream sink, int n) throws IOException {
            int copied = 0;
            while (copied < n) {
                if (!fill()) {
                    return copied;
                }
                int chunk = Math.min(n - copied, len - pos);
                sink.write(buffer, pos, chunk);
                pos += chunk;
                copied += chunk;
            }
            return copied;
        }

        void untilClose(ByteArrayOutputStream sink, int limit) throws IOException {
            exactly(sink, limit - sink.size());
        }
    }
}
