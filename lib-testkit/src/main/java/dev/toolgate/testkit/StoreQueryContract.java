package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The store contract on queries: filters, newest-first order, cursors and the store clock.
 * It is one link of the chain of superclasses of {@link StoreContractTest}, so extending that
 * one class runs every part.
 */
abstract class StoreQueryContract extends StoreExecutionContract {

    // ------------------------------------------------------------------------------ queries

    @Test
    void queriesFilterAndReturnNewestFirst() {
        CallRecord first = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord second = calls.record(executed("bob", "s2").toBuilder().status(CallStatus.FAILED).build());
        clock.advance(Duration.ofMillis(1));
        CallRecord third = calls.record(executed("ann", "s2").toBuilder().tenantId("globex").toolName("notes.get")
                .status(CallStatus.DENIED).build());

        assertThat(calls.query(CallQuery.latest(10))).extracting(CallRecord::id).containsExactly(third.id(), second.id(), first.id());
        assertThat(calls.query(CallQuery.latest(2))).extracting(CallRecord::id).containsExactly(third.id(), second.id());
        assertThat(calls.query(CallQuery.latest(10).principal("user:ann"))).extracting(CallRecord::id)
                .containsExactly(third.id(), first.id());
        assertThat(calls.query(CallQuery.latest(10).session("s2").tenant("acme"))).extracting(CallRecord::id)
                .containsExactly(second.id());
        assertThat(calls.query(CallQuery.latest(10).tool("notes.get"))).extracting(CallRecord::id).containsExactly(third.id());
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.EXECUTED))).extracting(CallRecord::id)
                .containsExactly(first.id());
    }

    @Test
    void aPrincipalFilterWithoutAKindFindsThatIdUnderEveryKindInTheQueryItself() {
        CallRecord user = calls.record(executed("carol", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord app = calls.record(executed("carol", "s1").toBuilder()
                .principal(new PrincipalRef(PrincipalKind.APPLICATION, "carol")).build());
        clock.advance(Duration.ofMillis(1));
        calls.record(executed("caroline", "s1"));
        calls.record(executed("user:carol", "s1")); // an id that looks like a key (user:user:carol): not user carol
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofMillis(1));
            calls.record(executed("dave", "s1"));
        }

        assertThat(calls.query(CallQuery.latest(10).principal("carol"))).extracting(CallRecord::id)
                .containsExactly(app.id(), user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("user:carol"))).extracting(CallRecord::id)
                .containsExactly(user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("application:carol"))).extracting(CallRecord::id)
                .containsExactly(app.id());
        assertThat(calls.query(CallQuery.latest(1).principal("carol"))).as("the limit counts matches, not rows read")
                .extracting(CallRecord::id).containsExactly(app.id());
        assertThat(ids(pages(CallQuery.latest(1).principal("carol")))).containsExactly(app.id(), user.id());
        assertThat(calls.query(CallQuery.latest(10).principal("carol").status(CallStatus.EXECUTED).tenant("acme")))
                .hasSize(2);
        assertThat(calls.query(CallQuery.latest(10).principal("Carol"))).as("ids are exact").isEmpty();
        assertThat(calls.query(CallQuery.latest(10).principal("service:carol"))).isEmpty();
    }

    /** Every page of {@code query}, following each full page's last record as the cursor. */
    private List<List<CallRecord>> pages(CallQuery query) {
        List<List<CallRecord>> pages = new java.util.ArrayList<>();
        CallQuery next = query;
        for (int i = 0; i < 1_000; i++) {
            List<CallRecord> page = calls.query(next);
            assertThat(page.size()).as("a page holds at most the limit").isLessThanOrEqualTo(query.limit());
            if (!page.isEmpty()) {
                pages.add(page);
            }
            if (page.size() < query.limit()) {
                return pages;
            }
            // through the text form, as a client sends it back
            next = next.after(CallQuery.Cursor.decode(CallQuery.Cursor.of(page.get(page.size() - 1)).encode()));
        }
        throw new AssertionError("paging did not end: " + pages.size() + " pages");
    }

    private static List<String> ids(List<List<CallRecord>> pages) {
        return pages.stream().flatMap(List::stream).map(CallRecord::id).toList();
    }

    /** 25 calls in three bursts that share their time (10, 5, 10), ann's and bob's alternating. */
    private List<CallRecord> bursts() {
        List<CallRecord> stored = new java.util.ArrayList<>();
        int[] bursts = {10, 5, 10};
        for (int burst : bursts) {
            for (int i = 0; i < burst; i++) {
                stored.add(calls.record(executed(stored.size() % 2 == 0 ? "ann" : "bob", "s" + (stored.size() % 3))));
            }
            clock.advance(Duration.ofMillis(1));
        }
        return stored;
    }

    @Test
    void pagingWithACursorVisitsEveryCallOnceEvenWhenTimesAreEqual() {
        List<CallRecord> stored = bursts();
        List<CallRecord> all = calls.query(CallQuery.latest(100));
        assertThat(all).extracting(CallRecord::id).containsExactlyInAnyOrderElementsOf(stored.stream().map(CallRecord::id).toList());
        for (int i = 1; i < all.size(); i++) {
            CallRecord newer = all.get(i - 1);
            CallRecord older = all.get(i);
            assertThat(older.createdAt()).as("newest first").isBeforeOrEqualTo(newer.createdAt());
            if (older.createdAt().equals(newer.createdAt())) {
                assertThat(older.id()).as("equal times: by id").isGreaterThan(newer.id());
            }
        }
        assertThat(all.stream().map(CallRecord::createdAt).distinct()).as("three distinct times").hasSize(3);

        List<List<CallRecord>> single = pages(CallQuery.latest(1));
        assertThat(single).as("limit 1 walks all 25, one by one").hasSize(25);
        assertThat(ids(single)).containsExactlyElementsOf(all.stream().map(CallRecord::id).toList());
        for (int limit : new int[] {2, 3, 4, 7, 10, 24, 25, 26}) {
            List<List<CallRecord>> pages = pages(CallQuery.latest(limit));
            assertThat(ids(pages)).as("limit " + limit).containsExactlyElementsOf(all.stream().map(CallRecord::id).toList());
            assertThat(pages).as("limit " + limit).hasSize((25 + limit - 1) / limit);
        }
    }

    @Test
    void aCursorCombinesWithFiltersAndTimeBounds() {
        bursts();
        List<CallRecord> anns = calls.query(CallQuery.latest(100).principal("user:ann"));
        assertThat(anns).hasSize(13).allMatch(r -> r.principal().key().equals("user:ann"));
        assertThat(ids(pages(CallQuery.latest(2).principal("user:ann")))).containsExactlyElementsOf(anns.stream().map(CallRecord::id).toList());
        assertThat(ids(pages(CallQuery.latest(1).principal("user:bob").session("s1"))))
                .containsExactlyElementsOf(calls.query(CallQuery.latest(100).principal("user:bob").session("s1"))
                        .stream().map(CallRecord::id).toList())
                .isNotEmpty();

        List<CallRecord> all = calls.query(CallQuery.latest(100));
        Instant oldest = all.get(all.size() - 1).createdAt();
        Instant middle = oldest.plusMillis(1);
        List<CallRecord> middleBurst = calls.query(CallQuery.latest(100).from(middle).until(middle.plusMillis(1)));
        assertThat(middleBurst).hasSize(5).allMatch(r -> r.createdAt().equals(middle));
        assertThat(ids(pages(CallQuery.latest(2).from(middle).until(middle.plusMillis(1)))))
                .containsExactlyElementsOf(middleBurst.stream().map(CallRecord::id).toList());
        List<CallRecord> annsFromMiddle = calls.query(CallQuery.latest(100).principal("user:ann").from(middle));
        assertThat(annsFromMiddle).hasSize(8);
        assertThat(ids(pages(CallQuery.latest(3).principal("user:ann").from(middle))))
                .containsExactlyElementsOf(annsFromMiddle.stream().map(CallRecord::id).toList());
    }

    @Test
    void fromIsInclusiveAndUntilExclusive() {
        CallRecord first = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord second = calls.record(executed("ann", "s1"));
        clock.advance(Duration.ofMillis(1));
        CallRecord third = calls.record(executed("ann", "s1"));
        List<CallRecord> all = calls.query(CallQuery.latest(10));
        assertThat(all).extracting(CallRecord::id).containsExactly(third.id(), second.id(), first.id());
        Instant t2 = all.get(1).createdAt();

        assertThat(calls.query(CallQuery.latest(10).from(t2))).extracting(CallRecord::id).containsExactly(third.id(), second.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2.plusNanos(1000)))).extracting(CallRecord::id).containsExactly(third.id());
        assertThat(calls.query(CallQuery.latest(10).until(t2))).extracting(CallRecord::id).containsExactly(first.id());
        assertThat(calls.query(CallQuery.latest(10).until(t2.plusNanos(1000)))).extracting(CallRecord::id)
                .containsExactly(second.id(), first.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2).until(t2.plusMillis(1)))).extracting(CallRecord::id)
                .containsExactly(second.id());
        assertThat(calls.query(CallQuery.latest(10).from(t2).until(t2))).as("an empty range").isEmpty();
        assertThat(calls.query(CallQuery.latest(10).from(CallQuery.MIN_TIME).until(CallQuery.MAX_TIME))).hasSize(3);
        assertThat(calls.query(CallQuery.latest(10).status(CallStatus.EXECUTED).from(t2).until(t2.plusMillis(1))))
                .extracting(CallRecord::id).containsExactly(second.id());
    }

    @Test
    void aCursorNeedNotBeAStoredCall() {
        bursts();
        List<CallRecord> all = calls.query(CallQuery.latest(100));
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(CallQuery.MAX_TIME, "z"))))
                .as("a cursor after every call: everything").hasSize(25);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(Instant.EPOCH, "a"))))
                .as("a cursor before every call: nothing").isEmpty();
        Instant newest = all.get(0).createdAt();
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(newest, "0"))))
                .as("'0' sorts before every UUID: everything").hasSize(25);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(newest, "g"))))
                .as("'g' sorts after every UUID: the older bursts only").hasSize(15);
        CallRecord gone = all.get(3);
        assertThat(calls.query(CallQuery.latest(100).after(new CallQuery.Cursor(gone.createdAt(), gone.id() + "0"))))
                .extracting(CallRecord::id).containsExactlyElementsOf(all.subList(4, 25).stream().map(CallRecord::id).toList());
    }

    @Test
    void theStoreClockIsTheOneClock() {
        Instant before = calls.now();
        clock.advance(Duration.ofSeconds(7));
        assertThat(Duration.between(before, calls.now())).isEqualTo(Duration.ofSeconds(7));
    }
}
