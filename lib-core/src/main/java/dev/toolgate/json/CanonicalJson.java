package dev.toolgate.json;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * Canonical JSON text and SHA-256 hashes of JSON trees, in the style of RFC 8785, the JSON
 * Canonicalization Scheme (JCS).
 *
 * <p>Two trees that mean the same thing produce the same text, whatever order their object keys were
 * written in and however their numbers were spelled, so the text (and its hash) can bind a proposal to
 * its arguments or detect that a document changed. The text is:
 * <ul>
 *   <li><b>objects</b>: members sorted by key, comparing UTF-16 code units ({@link String#compareTo});</li>
 *   <li><b>whitespace</b>: none outside strings;</li>
 *   <li><b>strings</b>: escaped as JCS does: {@code \"}, {@code \\}, {@code \b}, {@code \f},
 *       {@code \n}, {@code \r}, {@code \t}, other characters below U+0020 as {@code \}{@code u00xx} with
 *       lowercase hex, and everything else literally;</li>
 *   <li><b>numbers</b>: see below;</li>
 *   <li>{@code null}, {@code true} and {@code false} as themselves.</li>
 * </ul>
 *
 * <h2>Numbers</h2>
 * A number with an integral value, whatever its node type ({@code 1}, {@code 1.0}, {@code 1E+2},
 * {@code -0.0}, a {@code long}, a {@link java.math.BigInteger}), is written as its exact decimal integer
 * digits, without fraction or exponent: {@code 1}, {@code 1}, {@code 100}, {@code 0}. A number with a
 * fractional part is rounded to the nearest {@code double} and written as ECMAScript's
 * {@code Number.prototype.toString} writes that double: the shortest digits that round-trip, in exponent
 * form ({@code 1e-7}) exactly where ECMAScript uses it. So numbers compare by exact value when integral
 * and by {@code double} value otherwise, and equal values always give equal text.
 *
 * <p>This deviates from JCS for integral values of magnitude 10<sup>21</sup> or more, which JCS writes
 * in exponent form from their {@code double} value, and for integers beyond 2<sup>53</sup>, which JCS
 * rounds to a {@code double}: this class writes them exactly (the {@code double} {@code 1e21} becomes
 * {@code 1000000000000000000000}, the {@code long} 2<sup>53</sup>+1 keeps its last digit). Integral values
 * with more than {@value #MAX_INTEGER_DIGITS} digits are refused rather than expanded, so a short input
 * such as {@code 1E+999999999} cannot make the writer allocate a billion digits.
 *
 * <h2>Other deviations and refusals</h2>
 * <ul>
 *   <li>An unpaired surrogate in a string or key, which RFC 8785 excludes from its input, is written as a
 *       {@code \}{@code udxxx} escape (as ECMAScript's {@code JSON.stringify} does) instead of being
 *       replaced when the text is encoded as UTF-8, so distinct strings never share a hash.</li>
 *   <li>{@code NaN} and infinities have no JSON form and are refused with
 *       {@link IllegalArgumentException}. Note that Jackson reads an out-of-range literal such as
 *       {@code 1e400} as an infinite {@code double}, so parsed input can hold one.</li>
 *   <li>Binary, POJO and missing nodes are refused with {@link IllegalArgumentException}: they have no
 *       single JSON spelling.</li>
 * </ul>
 *
 * <p>All methods are thread-safe and never modify their arguments.
 */
public final class CanonicalJson {

    /** Most decimal digits an integral number may have; larger values are refused. */
    public static final int MAX_INTEGER_DIGITS = 1000;

    /** Shortest decimal form never needs more digits than this to round-trip a {@code double}. */
    private static final int MAX_DOUBLE_DIGITS = 17;

    private static final HexFormat HEX = HexFormat.of();

    private CanonicalJson() {
    }

    /**
     * The canonical JSON text of a tree, as described in the {@linkplain CanonicalJson class
     * documentation}.
     *
     * @param node the tree; not modified
     * @return the canonical text
     * @throws IllegalArgumentException when the tree holds NaN, an infinity, an integral number with more
     *                                  than {@value #MAX_INTEGER_DIGITS} digits, or a binary, POJO or
     *                                  missing node
     */
    public static String canonicalize(JsonNode node) {
        Objects.requireNonNull(node, "node");
        StringBuilder out = new StringBuilder();
        write(node, out);
        return out.toString();
    }

    /**
     * The SHA-256 digest of the UTF-8 bytes of {@link #canonicalize(JsonNode)}.
     *
     * @param node the tree; not modified
     * @return a new 32-byte array
     * @throws IllegalArgumentException as {@link #canonicalize(JsonNode)} does
     */
    public static byte[] sha256(JsonNode node) {
        return sha256Digest().digest(canonicalize(node).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The SHA-256 digest of the canonical text of a tree, as 64 lowercase hex digits.
     *
     * @param node the tree; not modified
     * @return the hex digest
     * @throws IllegalArgumentException as {@link #canonicalize(JsonNode)} does
     */
    public static String sha256Hex(JsonNode node) {
        return HEX.formatHex(sha256(node));
    }

    /**
     * The SHA-256 digest of raw bytes (no canonicalization), as 64 lowercase hex digits; for values that
     * are not JSON, such as a nonce.
     *
     * @param bytes the bytes to hash; not modified
     * @return the hex digest
     */
    public static String sha256Hex(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return HEX.formatHex(sha256Digest().digest(bytes));
    }

    /**
     * A fresh SHA-256 digest, cloned from a prototype: {@code MessageDigest.getInstance} looks the
     * algorithm up among the security providers on every call, a measurable part of a governed call's
     * own time (every call hashes its arguments).
     */
    static MessageDigest sha256Digest() {
        MessageDigest prototype = Sha256.PROTOTYPE;
        if (prototype != null) {
            try {
                return (MessageDigest) prototype.clone();
            } catch (CloneNotSupportedException e) {
                // a provider whose digest cannot be cloned: look it up every time
            }
        }
        return Sha256.lookUp();
    }

    /** The prototype SHA-256 digest (null if the platform's cannot be cloned), made on first use. */
    private static final class Sha256 {
        static final MessageDigest PROTOTYPE = cloneable(lookUp());

        private static MessageDigest cloneable(MessageDigest digest) {
            try {
                digest.clone();
                return digest;
            } catch (CloneNotSupportedException e) {
                return null;
            }
        }

        static MessageDigest lookUp() {
            try {
                return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform must provide SHA-256", e);
            }
        }
    }

    private static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> writeObject(node, out);
            case ARRAY -> writeArray(node, out);
            case STRING -> writeString(node.stringValue(), out);
            case NUMBER -> out.append(number(node));
            case BOOLEAN -> out.append(node.booleanValue());
            case NULL -> out.append("null");
            default -> throw new IllegalArgumentException(
                    "a " + node.getNodeType() + " node has no canonical JSON form");
        }
    }

    private static void writeObject(JsonNode node, StringBuilder out) {
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
        members.sort(Map.Entry.comparingByKey());
        out.append('{');
        for (int i = 0; i < members.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            writeString(members.get(i).getKey(), out);
            out.append(':');
            write(members.get(i).getValue(), out);
        }
        out.append('}');
    }

    private static void writeArray(JsonNode node, StringBuilder out) {
        out.append('[');
        boolean first = true;
        for (JsonNode element : node) {
            if (!first) {
                out.append(',');
            }
            first = false;
            write(element, out);
        }
        out.append(']');
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || isUnpairedSurrogate(s, i)) {
                        out.append("\\u").append(HEX.toHexDigits(c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean isUnpairedSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }

    /** The canonical text of a number node. */
    private static String number(JsonNode node) {
        if (node.isIntegralNumber()) {
            return integer(new BigDecimal(node.bigIntegerValue()));
        }
        if (node.isDouble() || node.isFloat()) {
            return decimal(node.doubleValue());
        }
        BigDecimal value = node.decimalValue();
        if (isIntegral(value)) {
            return integer(value);
        }
        double rounded = value.doubleValue();
        if (Double.isInfinite(rounded)) {
            throw new IllegalArgumentException("number " + value + " is outside the range of a double");
        }
        return decimal(rounded);
    }

    /** The canonical text of a number held as a {@code double}. */
    private static String decimal(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(value + " has no JSON form");
        }
        if (value == Math.rint(value)) {
            return integer(new BigDecimal(value));
        }
        return ecmaScriptString(value);
    }

    private static boolean isIntegral(BigDecimal value) {
        return value.signum() == 0 || value.scale() <= 0 || value.stripTrailingZeros().scale() <= 0;
    }

    /** Exact decimal digits of an integral value. */
    private static String integer(BigDecimal value) {
        if (value.signum() == 0) {
            return "0";
        }
        BigDecimal stripped = value.stripTrailingZeros();
        if (stripped.precision() - stripped.scale() > MAX_INTEGER_DIGITS) {
            throw new IllegalArgumentException(
                    "integral number with more than " + MAX_INTEGER_DIGITS + " digits has no canonical form");
        }
        return stripped.toBigIntegerExact().toString();
    }

    /**
     * ECMAScript's {@code Number.prototype.toString(value)} (ECMA-262, Number::toString) for a finite
     * double; the number serialization of RFC 8785. Package-private so the JCS test vectors can be checked
     * directly, including those for integral values that {@link #canonicalize(JsonNode)} writes exactly.
     */
    static String ecmaScriptString(double value) {
        if (value == 0) {
            return "0";
        }
        if (value < 0) {
            return "-" + ecmaScriptString(-value);
        }
        // value = 0.d1d2...dk x 10^n, with the digits as few as possible
        BigDecimal shortest = shortestRoundTrip(value);
        String digits = shortest.unscaledValue().toString();
        int k = digits.length();
        int n = k - shortest.scale();
        if (k <= n && n <= 21) {
            return digits + "0".repeat(n - k);
        }
        if (0 < n && n <= 21) {
            return digits.substring(0, n) + "." + digits.substring(n);
        }
        if (-6 < n && n <= 0) {
            return "0." + "0".repeat(-n) + digits;
        }
        int exponent = n - 1;
        String mantissa = k == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return mantissa + "e" + (exponent < 0 ? "-" : "+") + Math.abs(exponent);
    }

    /**
     * The decimal with the fewest significant digits that reads back as {@code value} (positive, finite),
     * the one closest to {@code value} when several qualify, with trailing zeros stripped.
     * {@link Double#toString(double)} cannot be used: before JDK 19 it sometimes prints a digit too many.
     */
    private static BigDecimal shortestRoundTrip(double value) {
        BigDecimal exact = new BigDecimal(value);
        for (int digits = 1; digits <= MAX_DOUBLE_DIGITS; digits++) {
            BigDecimal nearest = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (nearest.doubleValue() == value) {
                return nearest.stripTrailingZeros();
            }
            // At a power of two the interval that rounds to value is wider above it than below, so the
            // neighbour on the far side can round-trip when the nearest one does not.
            RoundingMode away = nearest.compareTo(exact) > 0 ? RoundingMode.FLOOR : RoundingMode.CEILING;
            BigDecimal other = exact.round(new MathContext(digits, away));
            if (other.doubleValue() == value) {
                return other.stripTrailingZeros();
            }
        }
        throw new AssertionError("17 significant digits always round-trip a double: " + value);
    }
}
