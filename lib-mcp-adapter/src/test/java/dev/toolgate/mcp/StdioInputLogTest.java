package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A malformed message on standard input is answered with its error and logged once, with what looks
 * like a secret in it (the client's own id here) masked in the log, never in the answer the client
 * gets back.
 */
class StdioInputLogTest {

    @Test
    void aRejectedMessageIsLoggedRedactedAndAnsweredAsSent() throws Exception {
        String secret = "sk-live-4f9c2e71d0b8a6";
        String hostile = "{\"jsonrpc\":\"1.0\",\"id\":\"api_key=" + secret + "\",\"method\":\"tools/list\"}\n";
        ByteArrayOutputStream answered = new ByteArrayOutputStream();
        StdioInput input = new StdioInput(new ByteArrayInputStream(hostile.getBytes(StandardCharsets.UTF_8)),
                new StdioOutput(answered), McpJsonDefaults.getMapper(), 1 << 20);

        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int read;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            read = input.read(new byte[64], 0, 64);
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);

        assertThat(read).as("nothing reaches the SDK: the message was rejected, then the input ended").isEqualTo(-1);
        assertThat(answered.toString(StandardCharsets.UTF_8)).as("the client's answer keeps its id")
                .contains("Invalid Request: jsonrpc must be").contains(secret);
        assertThat(log).as("the rejection is logged").contains("Rejected a malformed message on standard input")
                .contains("jsonrpc must be");
        assertThat(log).as("without the secret").doesNotContain(secret);
    }
}
