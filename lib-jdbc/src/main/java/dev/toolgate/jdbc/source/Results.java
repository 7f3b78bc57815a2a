package dev.toolgate.jdbc.source;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Runs the database source's statements and turns their results into JSON. */
final class Results {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** The longest text one cell contributes; the gate caps the whole result as well. */
    static final int MAX_CELL_CHARS = 4_000;
    private static final int MAX_TABLES = 500;
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "pg_toast");

    private Results() {
    }

    /**
     * {@code {"columns": [...], "rows": [{...}], "rowCount": n, "truncated": b}} for one query. Each row
     * is an object keyed by column label (a repeated label gets {@code _2}, {@code _3}), so that the
     * gate's redaction by key sees a {@code password} column as it sees a {@code password} field.
     */
    static JsonNode query(Connection connection, String sql, JsonNode params, int maxRows, int timeoutSeconds)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY,
                ResultSet.CONCUR_READ_ONLY)) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.setMaxRows(maxRows + 1);
            statement.setFetchSize(Math.min(maxRows + 1, 1000));
            bind(statement, params);
            ObjectNode result = JSON.objectNode();
            if (!statement.execute()) {
                // the guard lets only read statements through; a database that answers with a count is refused
                throw new SQLException("the statement returned no rows", "42000");
            }
            try (ResultSet rows = statement.getResultSet()) {
                ResultSetMetaData meta = rows.getMetaData();
                int columns = meta.getColumnCount();
                ArrayNode names = result.putArray("columns");
                String[] keys = new String[columns + 1];
                Set<String> taken = new java.util.HashSet<>();
                for (int c = 1; c <= columns; c++) {
                    String label = meta.getColumnLabel(c);
                    String key = label;
                    for (int n = 2; !taken.add(key); n++) {
                        key = label + "_" + n;
                    }
                    keys[c] = key;
                    names.add(key);
                }
                ArrayNode out = result.putArray("rows");
                int count = 0;
                boolean truncated = false;
                while (rows.next()) {
                    if (count == maxRows) {
                        truncated = true;
                        break;
                    }
                    ObjectNode row = out.addObject();
                    for (int c = 1; c <= columns; c++) {
                        row.set(keys[c], value(rows, c));
                    }
                    count++;
                }
                result.put("rowCount", count);
                result.put("truncated", truncated);
            }
            return result;
        }
    }

    private static void bind(PreparedStatement statement, JsonNode params) throws SQLException {
        if (params == null || !params.isArray()) {
            return;
        }
        int index = 1;
        for (JsonNode param : params) {
            if (param.isNull()) {
                statement.setObject(index, null);
            } else if (param.isBoolean()) {
                statement.setBoolean(index, param.booleanValue());
            } else if (param.isIntegralNumber() && param.canConvertToLong()) {
                statement.setLong(index, param.longValue());
            } else if (param.isNumber()) {
                statement.setBigDecimal(index, param.decimalValue());
            } else {
                statement.setString(index, param.asString());
            }
            index++;
        }
    }

    private static JsonNode value(ResultSet rows, int column) throws SQLException {
        Object value = rows.getObject(column);
        if (value == null) {
            return JSON.nullNode();
        }
        if (value instanceof Boolean b) {
            return JSON.booleanNode(b);
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return JSON.numberNode(((Number) value).intValue());
        }
        if (value instanceof Long l) {
            return JSON.numberNode(l);
        }
        if (value instanceof BigInteger big) {
            return JSON.numberNode(big);
        }
        if (value instanceof BigDecimal decimal) {
            return JSON.numberNode(decimal);
        }
        if (value instanceof Double d) {
            return Double.isFinite(d) ? JSON.numberNode(d) : JSON.stringNode(d.toString());
        }
        if (value instanceof Float f) {
            return Float.isFinite(f) ? JSON.numberNode(f) : JSON.stringNode(f.toString());
        }
        if (value instanceof byte[] bytes) {
            return JSON.stringNode("<" + bytes.length + " bytes>");
        }
        if (value instanceof Blob blob) {
            return JSON.stringNode("<" + blob.length() + " bytes>");
        }
        if (value instanceof Clob clob) {
            long length = clob.length();
            return text(clob.getSubString(1, (int) Math.min(length, MAX_CELL_CHARS + 1)));
        }
        if (value instanceof Array array) {
            ArrayNode items = JSON.arrayNode();
            try (ResultSet elements = array.getResultSet()) {
                while (elements.next()) {
                    items.add(value(elements, 2));
                }
            }
            return items;
        }
        return text(value.toString());
    }

    private static JsonNode text(String text) {
        return JSON.stringNode(text.length() <= MAX_CELL_CHARS ? text : text.substring(0, MAX_CELL_CHARS) + "…");
    }

    /** {@code {"tables": [{"schema", "name", "type", "columns": [{"name", "type", "nullable"}]}], "truncated": b}}. */
    static JsonNode tables(Connection connection, String schema) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        Map<String, ObjectNode> tables = new LinkedHashMap<>();
        boolean truncated = false;
        try (ResultSet rows = meta.getTables(null, schema == null ? null : exact(meta, schema), "%",
                new String[] {"TABLE", "VIEW", "BASE TABLE", "MATERIALIZED VIEW"})) {
            while (rows.next()) {
                String tableSchema = rows.getString("TABLE_SCHEM");
                if (tableSchema != null && SYSTEM_SCHEMAS.contains(tableSchema.toLowerCase(Locale.ROOT))) {
                    continue;
                }
                if (tables.size() == MAX_TABLES) {
                    truncated = true;
                    break;
                }
                ObjectNode table = JSON.objectNode();
                table.put("schema", tableSchema);
                table.put("name", rows.getString("TABLE_NAME"));
                table.put("type", rows.getString("TABLE_TYPE"));
                table.putArray("columns");
                tables.put(tableSchema + "\u0000" + rows.getString("TABLE_NAME"), table);
            }
        }
        for (ObjectNode table : tables.values()) {
            String tableSchema = table.path("schema").isNull() ? null : table.path("schema").asString();
            try (ResultSet columns = meta.getColumns(null, tableSchema == null ? null : exact(meta, tableSchema),
                    exact(meta, table.path("name").asString()), "%")) {
                ArrayNode out = (ArrayNode) table.get("columns");
                while (columns.next()) {
                    ObjectNode column = out.addObject();
                    column.put("name", columns.getString("COLUMN_NAME"));
                    column.put("type", columns.getString("TYPE_NAME"));
                    column.put("nullable", columns.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls);
                }
            }
        }
        ObjectNode result = JSON.objectNode();
        ArrayNode list = result.putArray("tables");
        tables.values().forEach(list::add);
        result.put("truncated", truncated);
        return result;
    }

    /** A name as a metadata pattern that matches only itself: {@code _} and {@code %} escaped. */
    private static String exact(DatabaseMetaData meta, String name) throws SQLException {
        String escape = meta.getSearchStringEscape();
        if (escape == null || escape.isEmpty()) {
            return name;
        }
        return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
    }
}
