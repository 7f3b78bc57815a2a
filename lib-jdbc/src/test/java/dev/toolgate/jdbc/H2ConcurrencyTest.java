package dev.toolgate.jdbc;

/** Budget exactness on H2 (row lock taken with {@code SELECT ... FOR UPDATE}, decision in Java). */
class H2ConcurrencyTest extends ConcurrencyContract {

    @Override
    String newDatabase() {
        return TestStores.h2MemoryUrl("budget");
    }
}
