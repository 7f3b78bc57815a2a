package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replay buffer's byte bound and per-stream bookkeeping, on the log itself (the HTTP tests cover the rest). */
class HttpEventLogTest {

    private static final class Collected implements HttpEventLog.Sink {
        final List<String> chunks = new ArrayList<>();
        boolean ended;

        @Override
        public void deliver(String chunk, boolean last) {
            if (!chunk.isEmpty()) {
                chunks.add(chunk);
            }
            ended |= last;
        }
    }

    private static String id(String chunk) {
        return chunk.substring(4, chunk.indexOf('\n'));
    }

    private static String idOfPriming(String priming) {
        return priming.substring(4, priming.indexOf('\n'));
    }

    @Test
    void theByteBoundEvictsTheOldestAndAnOversizedEventIsNeverReplayed() {
        HttpEventLog log = new HttpEventLog(1000, 2048);
        String start = idOfPriming(log.prime(0, 0));
        String payload = "{\"n\":\"" + "x".repeat(300) + "\"}"; // about 700 bytes a chunk
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(id(log.record(0, payload, false)));
        }
        assertThat(log.bytes()).isLessThanOrEqualTo(2048).isGreaterThan(0);
        assertThat(log.resume(start, new Collected(), () -> { }).problem()).isEqualTo(HttpEventLog.Problem.GONE);
        Collected tail = new Collected();
        assertThat(log.resume(ids.get(3), tail, () -> { }).problem()).isNull();
        assertThat(tail.chunks).extracting(HttpEventLogTest::id).containsExactly(ids.get(4), ids.get(5));

        String big = id(log.record(0, "{\"n\":\"" + "y".repeat(2000) + "\"}", false));
        String after = id(log.record(0, "{}", false));
        assertThat(log.resume(ids.get(5), new Collected(), () -> { }).problem()).as("the oversized event is not kept")
                .isEqualTo(HttpEventLog.Problem.GONE);
        Collected fromBig = new Collected();
        assertThat(log.resume(big, fromBig, () -> { }).problem()).isNull();
        assertThat(fromBig.chunks).extracting(HttpEventLogTest::id).containsExactly(after);
    }

    @Test
    void streamsAreSeparateAndACompleteStreamEndsItsResumption() {
        HttpEventLog log = new HttpEventLog(100, 1 << 20);
        int post = log.open();
        String priming = idOfPriming(log.prime(post, 500));
        log.record(0, "{\"on\":\"get\"}", false);
        String progress = id(log.record(post, "{\"on\":\"post\"}", false));
        String response = id(log.record(post, "{\"id\":1,\"result\":{}}", true));
        log.record(0, "{\"on\":\"get again\"}", false);

        Collected resumed = new Collected();
        assertThat(log.resume(priming, resumed, () -> { }).stream()).isEqualTo(post);
        assertThat(resumed.chunks).extracting(HttpEventLogTest::id).containsExactly(progress, response);
        assertThat(resumed.ended).isTrue();

        Collected late = new Collected();
        assertThat(log.resume(response, late, () -> { }).problem()).isNull();
        assertThat(late.chunks).isEmpty();
        assertThat(late.ended).as("nothing after the response: the stream is over").isTrue();

        HttpEventLog other = new HttpEventLog(100, 1 << 20);
        assertThat(other.resume(progress, new Collected(), () -> { }).problem()).as("another session's id")
                .isEqualTo(HttpEventLog.Problem.INVALID);
    }
}
