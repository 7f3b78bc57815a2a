package dev.toolgate.spi;

/**
 * Opens a {@link ToolgateStore} from settings. Found with {@link java.util.ServiceLoader} through
 * {@code META-INF/services/dev.toolgate.spi.StoreProvider}, so adding a storage module to the
 * classpath (plus, for a shared database, a URL) is all a host does. A store passed to the builder
 * explicitly wins over discovery; among discovered providers the highest {@link #priority()} wins.
 */
public interface StoreProvider {

    /** A short name for logs, such as {@code jdbc}. */
    String name();

    /** Higher wins when several providers are on the classpath. The in-memory store counts as 0. */
    int priority();

    /** Opens the store. */
    ToolgateStore open(StoreSettings settings);
}
