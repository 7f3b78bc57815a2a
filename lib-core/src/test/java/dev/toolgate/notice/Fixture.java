package dev.toolgate.notice;

import dev.toolgate.Toolgate;
import dev.toolgate.ToolgateBuilder;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A gate with one mutating tool and one program, on a store whose clock the test moves. */
final class Fixture {

    /** Distinctive argument values: none may ever appear in a notice. */
    static final String ARGUMENT = "ARG-VALUE-7f3a9c21";
    static final String EDITED_ARGUMENT = "EDITED-VALUE-5b81d0e4";
    static final String SUMMARY = "Touch the target";

    record Touch(String note) {
    }

    static final Principal USER = Principal.user("alice", "t.use");
    static final Principal BOSS = Principal.user("boss", "*");

    final MovableClock clock = new MovableClock();
    final InMemoryStore store = new InMemoryStore(clock);

    static CallContext user() {
        return CallContext.of(USER).withTenant("acme").withSession("s-1");
    }

    static CallContext boss() {
        return CallContext.of(BOSS).withTenant("acme");
    }

    static String args(String note) {
        return "{\"note\":\"" + note + "\"}";
    }

    ToolgateBuilder builder() {
        Tool<Touch, String> touch = Tool.builder("touch", Touch.class).description("Touch a target")
                .effect(Effect.MUTATE).requires("t.use")
                .dryRun((in, ctx) -> Preview.of(SUMMARY))
                .execute((in, ctx) -> "touched " + in.note()).build();
        Tool<Touch, String> read = Tool.builder("read", Touch.class).description("Read a target")
                .effect(Effect.READ).requires("t.use").execute((in, ctx) -> "read").build();
        return Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .budget(ToolBudget.unlimited()).sweepInterval(Duration.ZERO).tools("t", touch, read)
                .program("t.flow", run -> {
                    run.call("t.read", dev.toolgate.json.Json.parse(args(ARGUMENT)));
                    return run.call("t.touch", dev.toolgate.json.Json.parse(args(ARGUMENT)));
                });
    }

    /** Records every notice. */
    static final class Recording implements ApprovalNotifier {
        final BlockingQueue<ApprovalNotice> notices = new LinkedBlockingQueue<>();

        @Override
        public void onNotice(ApprovalNotice notice) {
            notices.add(notice);
        }

        ApprovalNotice next() throws InterruptedException {
            ApprovalNotice notice = notices.poll(10, TimeUnit.SECONDS);
            if (notice == null) {
                throw new AssertionError("no notice arrived within 10 seconds");
            }
            return notice;
        }

        List<ApprovalNotice> next(int count) throws InterruptedException {
            List<ApprovalNotice> got = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                got.add(next());
            }
            return got;
        }
    }

    /** A clock the test moves forward. */
    static final class MovableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-11-27T06:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
