package dev.toolgate.mcp;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One session's SSE events kept for replay, bounded by count and bytes (oldest evicted first), and
 * the live connection (sink) of each of its streams. Stream 0 is the GET listening stream; every POST
 * answered with an event stream gets the next number.
 *
 * <p>An event id is {@code <tag>-<stream>-<seq>}: {@code tag} is random per session, so another
 * session's id never matches; {@code seq} counts the session's events. A client that reconnects with
 * GET and {@code Last-Event-ID} gets that stream's events after the id, then what follows live
 * ({@link #resume}); an id that is malformed, of another session, or not yet issued is
 * {@link Problem#INVALID}; an id after which an event of its stream was evicted (or whose stream is
 * forgotten) is {@link Problem#GONE}. Either way nothing changes.
 */
final class HttpEventLog {

    /** Where a stream's events go live; non-blocking. */
    interface Sink {

        /** Queues an SSE chunk; {@code last} means the stream ends after it. */
        void deliver(String chunk, boolean last);
    }

    /** Why a {@code Last-Event-ID} cannot be resumed. */
    enum Problem {
        INVALID, GONE
    }

    /** The outcome of {@link #resume}: the stream resumed and the sink replaced (to close), or the problem. */
    record Resumed(int stream, Problem problem, Sink replaced) {
    }

    private static final Pattern ID = Pattern.compile("([0-9a-f]{16})-([0-9]{1,9})-([0-9]{1,18})");
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Streams remembered at most (their numbers, completion and eviction marks), oldest forgotten first. */
    private static final int MAX_STREAMS = 1024;

    private record Event(int stream, long seq, String chunk, boolean last) {
    }

    private static final class Stream {
        Sink sink;
        long evictedThrough;
        boolean complete;
    }

    private final String tag;
    private final int maxEvents;
    private final long maxBytes;
    private final ArrayDeque<Event> events = new ArrayDeque<>();
    private final Map<Integer, Stream> streams = new HashMap<>();
    private long bytes;
    private long lastSeq;
    private int nextStream = 1;

    HttpEventLog(int maxEvents, long maxBytes) {
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        this.tag = HexFormat.of().formatHex(random);
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
        streams.put(0, new Stream());
    }

    /** A new stream (for a POST answered with SSE) and its number. */
    synchronized int open() {
        int stream = nextStream++;
        streams.put(stream, new Stream());
        if (streams.size() > MAX_STREAMS) {
            // forget the oldest finished stream; only when none is finished, the oldest of all
            streams.entrySet().stream().filter(e -> e.getKey() != 0 && e.getValue().complete && e.getValue().sink == null)
                    .map(Map.Entry::getKey).min(Integer::compare)
                    .or(() -> streams.keySet().stream().filter(n -> n != 0).min(Integer::compare))
                    .ifPresent(streams::remove);
        }
        return stream;
    }

    /**
     * The priming event of a stream: an id and empty data (nothing stored), so that a client that
     * loses the stream before any message can resume after it; with {@code retry:} when {@code retryMillis > 0}.
     */
    synchronized String prime(int stream, long retryMillis) {
        String id = id(stream, ++lastSeq);
        return "id: " + id + "\n" + (retryMillis > 0 ? "retry: " + retryMillis + "\n" : "") + "data:\n\n";
    }

    /**
     * Records a message of {@code stream} (kept for replay when it fits the bounds) and delivers it to
     * the stream's sink, if one is attached. Returns the SSE chunk, id included.
     */
    synchronized String record(int stream, String json, boolean last) {
        long seq = ++lastSeq;
        String chunk = HttpResponses.event(id(stream, seq), json);
        Stream state = streams.get(stream);
        if (state != null) {
            state.complete |= last;
            long size = chunk.length() * 2L;
            if (size > maxBytes) {
                state.evictedThrough = seq; // cannot be kept: resuming before it is GONE
            } else {
                events.addLast(new Event(stream, seq, chunk, last));
                bytes += size;
                while (events.size() > maxEvents || bytes > maxBytes) {
                    Event evicted = events.removeFirst();
                    bytes -= evicted.chunk().length() * 2L;
                    Stream of = streams.get(evicted.stream());
                    if (of != null) {
                        of.evictedThrough = evicted.seq();
                    }
                }
            }
            if (state.sink != null) {
                state.sink.deliver(chunk, last);
                if (last) {
                    state.sink = null;
                }
            }
        }
        return chunk;
    }

    /** Makes {@code sink} the live connection of {@code stream} (replacing any); returns the one it replaced. */
    synchronized Sink attach(int stream, Sink sink) {
        Stream state = streams.get(stream);
        if (state == null) {
            return null;
        }
        Sink previous = state.sink;
        state.sink = sink;
        return previous;
    }

    /** Detaches {@code sink} from {@code stream} if it is still the stream's sink. */
    synchronized void detach(int stream, Sink sink) {
        Stream state = streams.get(stream);
        if (state != null && state.sink == sink) {
            state.sink = null;
        }
    }

    /**
     * Resumes the stream of {@code lastEventId}: delivers to {@code sink} the stream's kept events after
     * it, in order, then attaches the sink for what follows (unless the stream is complete: then the
     * last replayed event ends it). Nothing happens when the id has a {@link Problem}.
     * {@code beforeReplay} runs first, under the same lock, when the id is good (to write headers).
     */
    synchronized Resumed resume(String lastEventId, Sink sink, Runnable beforeReplay) {
        Matcher m = lastEventId == null || lastEventId.length() > 64 ? null : ID.matcher(lastEventId.strip());
        if (m == null || !m.matches() || !m.group(1).equals(tag)) {
            return new Resumed(-1, Problem.INVALID, null);
        }
        int stream = Integer.parseInt(m.group(2));
        long seq = Long.parseLong(m.group(3));
        if (stream >= nextStream || seq > lastSeq) {
            return new Resumed(-1, Problem.INVALID, null);
        }
        Stream state = streams.get(stream);
        if (state == null || state.evictedThrough > seq) {
            return new Resumed(stream, Problem.GONE, null);
        }
        beforeReplay.run();
        Sink replaced = state.sink;
        state.sink = null;
        boolean ended = false;
        for (Event event : events) {
            if (event.stream() == stream && event.seq() > seq) {
                sink.deliver(event.chunk(), event.last());
                ended |= event.last();
            }
        }
        if (state.complete && !ended) {
            sink.deliver("", true); // everything was delivered before the id: the stream is over
        } else if (!state.complete) {
            state.sink = sink;
        }
        return new Resumed(stream, null, replaced);
    }

    /**
     * Attaches {@code sink} to {@code stream} after delivering it the stream's priming event;
     * {@code beforePriming} runs first, under the same lock (to write the response's headers): an event
     * recorded once the client can know the stream is open (a reaction to its headers) waits for the
     * lock and reaches the sink. Writing the headers before taking the lock lost such an event: recorded
     * while no sink was attached, it was kept but never delivered (McpHttpProtocolTest hung on it).
     */
    synchronized void attachPrimed(int stream, Sink sink, long retryMillis, Runnable beforePriming) {
        beforePriming.run();
        sink.deliver(prime(stream, retryMillis), false);
        attach(stream, sink);
    }

    /** Bytes of events kept now (for tests). */
    synchronized long bytes() {
        return bytes;
    }

    private String id(int stream, long seq) {
        return tag + "-" + stream + "-" + seq;
    }
}
