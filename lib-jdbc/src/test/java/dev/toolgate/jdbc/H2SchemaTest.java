package dev.toolgate.jdbc;

class H2SchemaTest extends SchemaContract {

    @Override
    String emptyDatabase(String name) {
        return TestStores.h2MemoryUrl("schema-" + name) + ";DB_CLOSE_DELAY=-1";
    }
}
