package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpServer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP_NODELAY for the JDK's HTTP server, without which every call on a kept-alive connection waits
 * about 40 ms.
 *
 * <p>The stall: JDK 17's server writes a response's status line and headers to the socket in one
 * write ({@code ExchangeImpl.sendResponseHeaders} flushes them) and the body in a second
 * ({@code FixedLengthOutputStream}, straight to the channel). With Nagle's algorithm on, the kernel
 * holds the small second segment until the first is acknowledged, and the client, which has nothing
 * to send before the response is complete, delays that acknowledgement (40 ms on Linux). A new
 * connection per call does not stall, because Linux acknowledges at once early in a connection.
 * Newer JDKs (25 does) buffer the headers with a small body and write both at once; TCP_NODELAY still
 * sends each event of an event stream without waiting.
 *
 * <p>The JDK's only switch is the system property {@value #PROPERTY}: its server sets TCP_NODELAY on
 * each accepted connection if {@code sun.net.httpserver.ServerConfig} read the property as
 * {@code true}, which that class does once per JVM, in its static initializer, when the first JDK
 * HTTP server is created. There is no per-server option, the accepted channels are out of a handler's
 * reach (the JDK does not open its package), and the separate write of the headers cannot be avoided
 * from a handler. So this class sets the property to {@code true} when it is initialized, which is
 * when {@link ToolgateMcpServer} is first used, unless the host set it (the host's value stands,
 * whatever it is) or the JDK has already read it. A JVM-wide setting, then, unlike the transport's
 * limits: it makes the JDK's other HTTP servers in the JVM answer without the stall too.
 *
 * <p>Limitation: if a JDK HTTP server was created in this JVM before {@link ToolgateMcpServer} was
 * first used (the host's own endpoint, another library's), the JDK has read the property already and
 * Toolgate's server runs without TCP_NODELAY. The first HTTP server start then logs one warning
 * naming the remedy: the JVM option {@code -Dsun.net.httpserver.nodelay=true}, or using
 * {@link ToolgateMcpServer} before creating any other JDK HTTP server. Detecting it depends on the
 * JVM: on JDKs that still have {@code sun.misc.Unsafe.shouldBeInitialized} (17 does, 25 does not) it
 * is exact; elsewhere it is seen only while such a server still runs (by its threads).
 */
final class HttpNoDelay {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);

    /** The JDK's system property. */
    static final String PROPERTY = "sun.net.httpserver.nodelay";

    /** What became of TCP_NODELAY for the JDK's HTTP servers in this JVM. */
    enum State {
        /** Set here, before the JDK read it: on. */
        SET,
        /** The host set the property to {@code true}: on. */
        HOST_ON,
        /** The host set the property to something else: off, as the host asked. */
        HOST_OFF,
        /** The JDK read the property (unset) before Toolgate's code ran: off. */
        TOO_LATE,
        /** The security manager refused to set it: off. */
        REFUSED
    }

    private static final State STATE = apply();
    private static final AtomicBoolean REPORTED = new AtomicBoolean();

    private HttpNoDelay() {
    }

    /** Runs this class's initializer (calling it is enough), once per JVM. */
    static void ensure() {
        // initialized
    }

    /** What to do with the host's value of the property, if any, and whether the JDK has read it. */
    static State decide(String hostValue, boolean jdkHasRead) {
        if (hostValue != null) {
            return Boolean.parseBoolean(hostValue) ? State.HOST_ON : State.HOST_OFF; // as the JDK's Boolean.getBoolean
        }
        return jdkHasRead ? State.TOO_LATE : State.SET;
    }

    private static State apply() {
        try {
            State state = decide(System.getProperty(PROPERTY), jdkHasRead());
            if (state == State.SET) {
                System.setProperty(PROPERTY, "true");
            }
            return state;
        } catch (SecurityException e) {
            return State.REFUSED;
        }
    }

    /** Once per JVM, when an HTTP server starts: a warning if TCP_NODELAY is off without the host asking. */
    static void report() {
        if (!REPORTED.compareAndSet(false, true)) {
            return;
        }
        switch (STATE) {
            case TOO_LATE, REFUSED -> LOG.warn("MCP HTTP server without TCP_NODELAY: {}, so each call on a kept-alive "
                            + "connection may wait about 40 ms for the client's delayed ACK (Nagle's algorithm). Start the JVM "
                            + "with -D{}=true, or use ToolgateMcpServer before creating any other JDK HttpServer",
                    STATE == State.TOO_LATE ? "a JDK HttpServer was created in this JVM before ToolgateMcpServer was used "
                            + "and the JDK reads " + PROPERTY + " only then" : "the security manager refused to set " + PROPERTY,
                    PROPERTY);
            case HOST_OFF -> LOG.info("MCP HTTP server without TCP_NODELAY, as -D{}={} asks: each call on a kept-alive "
                    + "connection may wait about 40 ms", PROPERTY, System.getProperty(PROPERTY));
            default -> LOG.debug("MCP HTTP server with TCP_NODELAY ({})", STATE);
        }
    }

    /**
     * Whether the JDK's HTTP server configuration has been initialized, which reads the property: exact
     * where {@code sun.misc.Unsafe.shouldBeInitialized} exists, else whether a JDK server runs now.
     */
    private static boolean jdkHasRead() {
        try {
            Class<?> config = Class.forName("sun.net.httpserver.ServerConfig", false, HttpServer.class.getClassLoader());
            Class<?> unsafeType = Class.forName("sun.misc.Unsafe");
            Method shouldBeInitialized = unsafeType.getMethod("shouldBeInitialized", Class.class);
            Field theUnsafe = unsafeType.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            return !(Boolean) shouldBeInitialized.invoke(theUnsafe.get(null), config);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return jdkServerRunning();
        }
    }

    /** The JDK's server names its timer thread {@code idle-timeout-task} (from creation) and its dispatcher {@code HTTP-Dispatcher}. */
    private static boolean jdkServerRunning() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count = root.enumerate(threads, true);
        return Arrays.stream(threads, 0, count)
                .anyMatch(thread -> thread.getName().equals("idle-timeout-task") || thread.getName().equals("HTTP-Dispatcher"));
    }
}
