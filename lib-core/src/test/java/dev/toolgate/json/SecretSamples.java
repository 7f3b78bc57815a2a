package dev.toolgate.json;

import java.util.List;
import java.util.Random;

/**
 * Made-up secrets in the shapes {@link Redactor} recognizes, and ordinary values that look a little like
 * them, for tests. None of these is a real credential.
 */
final class SecretSamples {

    static final String JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
            + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    static final String UNSIGNED_JWT = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.";
    static final String ENCRYPTED_JWT = "eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4R0NNIn0..6KB707dM9YTIgHtLvtgWQ8mKwboJW3of9locizkDTHzBC2IlrT1oOQ"
            + ".5vJ-tCJrsuVXrC1wQ3mbeo7ojb6hHvsHw0mhfHNnzeJPQmVx.K5gmqkTi2UAPWmERWPw";
    static final String OPENAI_LEGACY = "sk-Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6v";
    static final String OPENAI_PROJECT = "sk-proj-Ab3dEf6hIj9lMn2pQr5t_Uv8xYz1bCd4fGh7jKl0-nOp3rSt6vWx9zAb2dEf5hIj8lMn1p";
    static final String ANTHROPIC = "sk-ant-api03-Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zAb2dEf5hIj8lMn1pQr4t"
            + "Uv7xYz0bCd3fGh6j-Kl9nOpQAA";
    static final String GITHUB_PAT = "ghp_Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j";
    static final String GITHUB_FINE_GRAINED = "github_pat_11ABCDEFG0Ab3dEf6hIj9l_Mn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9z";
    static final String SLACK_BOT = "xoxb-2400000000-2400000000001-Ab3dEf6hIj9lMn2pQr5tUv8x";
    static final String AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
    static final String AWS_TEMPORARY_KEY_ID = "ASIAY34FZKBOKMUTVV7A";
    static final String GOOGLE_API_KEY = "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe";
    static final String STRIPE_LIVE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
    static final String STRIPE_RESTRICTED = "rk_live_51H8Ab3dEf6hIj9lMn2pQr5tUv";
    static final String PEM_PRIVATE_KEY = """
            -----BEGIN RSA PRIVATE KEY-----
            MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun
            VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
            -----END RSA PRIVATE KEY-----""";
    static final String PEM_OPENSSH_KEY = """
            -----BEGIN OPENSSH PRIVATE KEY-----
            b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
            -----END OPENSSH PRIVATE KEY-----""";

    /** Secrets recognized by shape alone, under any key and inside longer text. */
    static final List<String> SHAPED = List.of(JWT, UNSIGNED_JWT, ENCRYPTED_JWT, OPENAI_LEGACY, OPENAI_PROJECT,
            ANTHROPIC, GITHUB_PAT, GITHUB_FINE_GRAINED, SLACK_BOT, AWS_ACCESS_KEY_ID, AWS_TEMPORARY_KEY_ID,
            GOOGLE_API_KEY, STRIPE_LIVE, STRIPE_RESTRICTED, PEM_PRIVATE_KEY, PEM_OPENSSH_KEY);

    /** Ordinary values that must survive redaction unchanged under a harmless key. */
    static final List<String> ORDINARY = List.of(
            "123e4567-e89b-12d3-a456-426614174000",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "2024-05-01T12:30:45.123Z", "2024-05-01T12:30:45+02:00", "12:30",
            "skeleton", "sky-blue", "task-123", "sk-learn", "sk-internationalization-guide", "risk-free",
            "AKIA", "akiaiosfodnn7example", "ghp_short", "eyJhbGciOiJIUzI1NiJ9",
            "Bearer token", "a bearer of bad news", "basic validation failed",
            "https://example.com/a/b?c=d#e", "https://alice@example.com/", "http://[::1]:8080/x", "mailto:alice@example.com",
            "alice@example.com", "dGhpcyBpcyBhIHRlc3Q=", "price: 12.50 EUR", "max_tokens=1024",
            "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
            "The quick brown fox jumps over the lazy dog.", "");

    private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private SecretSamples() {
    }

    /** A random secret of one of the recognized shapes. */
    static String randomShaped(Random random) {
        return switch (random.nextInt(11)) {
            case 0 -> "sk-" + alnum(random, 48) + "7";
            case 1 -> "sk-proj-" + alnum(random, 20 + random.nextInt(100));
            case 2 -> "sk-ant-api03-" + alnum(random, 90);
            case 3 -> "gh" + "pousr".charAt(random.nextInt(5)) + "_" + alnum(random, 36);
            case 4 -> "xox" + "bpar".charAt(random.nextInt(4)) + "-" + digits(random, 10) + "-" + alnum(random, 24);
            case 5 -> (random.nextBoolean() ? "AKIA" : "ASIA") + upperAlnum(random, 16);
            case 6 -> "AIza" + alnum(random, 35);
            case 7 -> (random.nextBoolean() ? "sk" : "rk") + "_live_" + alnum(random, 24);
            case 8 -> "eyJ" + alnum(random, 30) + ".eyJ" + alnum(random, 40) + "." + alnum(random, 43);
            case 9 -> "-----BEGIN PRIVATE KEY-----\n" + alnum(random, 64) + "\n" + alnum(random, 20)
                    + "\n-----END PRIVATE KEY-----";
            default -> "ghp_" + alnum(random, 36);
        };
    }

    static String alnum(Random random, int length) {
        return pick(random, ALNUM, length);
    }

    private static String upperAlnum(Random random, int length) {
        return pick(random, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", length);
    }

    private static String digits(Random random, int length) {
        return pick(random, "0123456789", length);
    }

    private static String pick(Random random, String alphabet, int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }
}
