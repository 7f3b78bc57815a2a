package com.example.bomhost;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The smallest host of toolgate-core and toolgate-jdbc, taken as a user takes them (the BOM, no
 * versions): one read and one mutation (proposed, then applied) on an in-memory H2 store. Exits with
 * status 1 when the gate answers otherwise.
 */
public final class BomHost {

    record NewNote(String text) {}

    record NoteId(String id) {}

    public static void main(String[] args) {
        Map<String, String> notes = new ConcurrentHashMap<>();
        JdbcStore store = JdbcStore.builder().url("jdbc:h2:mem:bomhost;DB_CLOSE_DELAY=-1").build();
        try (store; Toolgate gate = Toolgate.builder()
                .store(store)
                .tools("notes",
                        Tool.builder("add", NewNote.class)
                                .description("Add a note.")
                                .effect(Effect.MUTATE)
                                .requires("notes.write")
                                .dryRun((in, ctx) -> Preview.of("Add the note \"" + in.text() + "\""))
                                .execute((in, ctx) -> {
                                    String id = "n" + (notes.size() + 1);
                                    notes.put(id, in.text());
                                    return new NoteId(id);
                                })
                                .build(),
                        Tool.builder("count", NoteId.class)
                                .description("Count the notes.")
                                .effect(Effect.READ)
                                .requires("notes.read")
                                .execute((in, ctx) -> notes.size())
                                .build())
                .build()) {
            CallContext ctx = CallContext.of(Principal.user("dana", "notes.read", "notes.write"));
            CallResult proposed = gate.call(ctx, "notes.add", "{\"text\":\"hello from the BOM\"}");
            if (!(proposed instanceof Proposal proposal)) {
                throw new IllegalStateException("expected a proposal, got " + proposed);
            }
            Applied applied = gate.apply(ctx, proposal.token());
            CallResult counted = gate.call(ctx, "notes.count", "{\"id\":\"any\"}");
            if (!(counted instanceof Executed executed) || executed.result().asInt() != 1) {
                throw new IllegalStateException("expected one note, got " + counted);
            }
            System.out.println("bom-host: " + applied.summary() + " -> applied " + applied.result()
                    + "; notes.count -> " + executed.result() + " (store " + store.getClass().getSimpleName() + ", H2)");
        } catch (RuntimeException e) {
            e.printStackTrace();
            System.exit(1);
        }
    }
}
