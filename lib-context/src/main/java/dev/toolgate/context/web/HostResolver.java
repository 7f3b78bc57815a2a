package dev.toolgate.context.web;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into the addresses to check. The probe calls it exactly once per request, checks
 * every address it returns with the {@link SsrfGuard}, and connects to a checked address itself, so a
 * second lookup can never rebind the name to an internal address.
 */
@FunctionalInterface
public interface HostResolver {

    /**
     * The addresses of {@code host}.
     *
     * @param host a syntactically checked, lower-case ASCII host name without a trailing dot
     * @return every address of the name; an empty list is treated as "does not resolve"
     * @throws UnknownHostException if the name does not resolve
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;

    /** The JVM's resolver, {@link InetAddress#getAllByName(String)}. */
    static HostResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
