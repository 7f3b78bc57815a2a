package dev.toolgate.gate;

import dev.toolgate.call.MalformedTokenException;
import dev.toolgate.json.CanonicalJson;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A proposal's single-use token: {@code propose:<callId>.<nonce>}, where the nonce is 32 bytes from
 * {@link SecureRandom} in lower-case hex. The audit record stores only the SHA-256 of the nonce, so
 * reading the database never lets anyone apply; apply compares digests in constant time.
 *
 * <p>{@link #toString()} hides the nonce, so a token that reaches a log is not usable.
 */
final class ProposalToken {

    /** The token prefix. */
    public static final String PREFIX = "propose:";
    /** Nonce length in bytes. */
    public static final int NONCE_BYTES = 32;

    private static final int MAX_LENGTH = 256;
    private static final HexFormat HEX = HexFormat.of();

    private final String callId;
    private final byte[] nonce;

    private ProposalToken(String callId, byte[] nonce) {
        this.callId = callId;
        this.nonce = nonce;
    }

    /** A fresh token for a proposal. */
    public static ProposalToken generate(String callId, SecureRandom random) {
        Objects.requireNonNull(callId, "callId");
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return new ProposalToken(callId, nonce);
    }

    /**
     * Parses a token.
     *
     * @throws MalformedTokenException if it is not {@code propose:<uuid>.<64 hex characters>}
     */
    public static ProposalToken parse(String token) {
        if (token == null || token.isEmpty()) {
            throw new MalformedTokenException("the token is empty");
        }
        if (token.length() > MAX_LENGTH) {
            throw new MalformedTokenException("the token is " + token.length() + " characters; a token has "
                    + (PREFIX.length() + 36 + 1 + NONCE_BYTES * 2));
        }
        if (!token.startsWith(PREFIX)) {
            throw new MalformedTokenException("the token does not start with '" + PREFIX + "'");
        }
        String rest = token.substring(PREFIX.length());
        int dot = rest.lastIndexOf('.');
        if (dot < 0) {
            throw new MalformedTokenException("the token has no '.' between the proposal id and the nonce");
        }
        String id = rest.substring(0, dot);
        String nonce = rest.substring(dot + 1);
        if (!isLowerCaseUuid(id)) {
            throw new MalformedTokenException("the proposal id in the token is not a lower-case UUID");
        }
        if (!isHex(nonce, NONCE_BYTES * 2)) {
            throw new MalformedTokenException("the nonce must be " + (NONCE_BYTES * 2) + " hex characters, got "
                    + nonce.length() + " characters");
        }
        return new ProposalToken(id, HEX.parseHex(nonce));
    }

    /** The proposal's call id. */
    public String callId() {
        return callId;
    }

    /** The SHA-256 of the nonce, as stored. */
    public byte[] nonceDigest() {
        return HEX.parseHex(nonceDigestHex());
    }

    /** {@link #nonceDigest()} in lower-case hex. */
    public String nonceDigestHex() {
        return CanonicalJson.sha256Hex(nonce);
    }

    /** True if {@code storedDigestHex} is this token's nonce digest; compared in constant time. */
    public boolean matches(String storedDigestHex) {
        if (storedDigestHex == null || storedDigestHex.length() != NONCE_BYTES * 2) {
            return false;
        }
        byte[] stored;
        try {
            stored = HEX.parseHex(storedDigestHex);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(stored, nonceDigest());
    }

    /** The full token text, to hand to whoever may apply. */
    public String value() {
        return PREFIX + callId + "." + HEX.formatHex(nonce);
    }

    @Override
    public String toString() {
        return PREFIX + callId + ".<hidden>";
    }

    /** {@code [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}, ASCII only. */
    private static boolean isLowerCaseUuid(String text) {
        if (text.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = text.charAt(i);
            boolean hyphenHere = i == 8 || i == 13 || i == 18 || i == 23;
            if (hyphenHere ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** Exactly {@code length} hex digits of either case, ASCII only. */
    private static boolean isHex(String text, int length) {
        if (text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
