package dev.toolgate.codemode;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Disposition;
import dev.toolgate.tool.ToolValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tool calls of a test run: a read that policy lets run is a real, governed call; anything else
 * is answered by the gate's preview (a mutation's dry-run), so nothing changes. Every call is
 * checked as a real one would be; one the gate refuses outright (rules, budget, bad arguments before
 * any dry-run) ends the test, as it would end a run.
 */
final class TestCaller implements Sandbox.ToolCaller {

    /** The most calls one test makes, as one run. */
    static final int MAX_STEPS = 10_000;

    /** A call the gate refused outright: the test ends with it, whatever the script catches. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final Toolgate gate;
    private final CallContext context;
    private final Set<String> tools;
    private final ArrayNode steps = JsonNodeFactory.instance.arrayNode();
    private final List<Integer> wouldPause = new ArrayList<>();
    private Refused refused;
    private int seq;

    TestCaller(Toolgate gate, CallContext context, Set<String> tools) {
        this.gate = gate;
        this.context = context;
        this.tools = tools;
    }

    @Override
    public synchronized String call(String tool, String argsJson) {
        if (refused != null) {
            throw refused;
        }
        int step = ++seq;
        if (step > MAX_STEPS) {
            throw refuse(step, tool, "a run takes at most " + MAX_STEPS + " steps");
        }
        if (!tools.contains(tool)) {
            throw new Sandbox.ToolFailure("TypeError", "there is no tool " + tool + " for this caller", null);
        }
        JsonNode args = Json.parse(argsJson);
        try {
            CallPreview preview = gate.preview(context, tool, args);
            if (preview.disposition() == Disposition.DENY) {
                step(step, tool, preview, "denied");
                throw new Sandbox.ToolFailure("DeniedError", tool + " was denied by policy (policy)",
                        Json.write(Json.object().put("reason", "policy")));
            }
            if (preview.disposition() == Disposition.RUN) {
                return Json.write(read(step, tool, args, preview));
            }
            String outcome = preview.wouldPause() ? "would_pause" : "would_apply";
            ObjectNode line = step(step, tool, preview, outcome);
            line.put("summary", preview.summary());
            if (preview.wouldPause()) {
                wouldPause.add(step);
            }
            ObjectNode answer = Json.object();
            answer.put("dryRun", true);
            answer.put("tool", tool);
            answer.put("summary", preview.summary());
            answer.set("payload", preview.payload());
            return Json.write(answer);
        } catch (ToolValidationException e) {
            steps.addObject().put("seq", step).put("tool", tool).put("outcome", "invalid");
            throw Failures.invalid(tool, e);
        } catch (ToolExecutionException e) {
            steps.addObject().put("seq", step).put("tool", tool).put("outcome", "failed");
            throw Failures.failed(tool, e);
        } catch (PolicyDeniedException e) {
            steps.addObject().put("seq", step).put("tool", tool).put("outcome", "denied");
            throw Failures.denied(tool, e);
        } catch (Sandbox.ToolFailure e) {
            throw e;
        } catch (RuntimeException e) {
            throw refuse(step, tool, e.getClass().getSimpleName().replace("Exception", "") + ": " + e.getMessage());
        }
    }

    private JsonNode read(int step, String tool, JsonNode args, CallPreview preview) {
        CallResult result = gate.call(context, tool, args);
        if (result instanceof Denied denied) {
            step(step, tool, preview, "denied");
            throw new Sandbox.ToolFailure("DeniedError", tool + " was denied by policy (" + denied.reason() + ")",
                    Json.write(Json.object().put("reason", denied.reason()).put("callId", denied.callId())));
        }
        if (result instanceof Executed executed) {
            step(step, tool, preview, "ran").put("callId", executed.callId());
            return executed.result();
        }
        // policy changed between the preview and the call: the call is in the inbox now; say so
        step(step, tool, preview, "would_pause").put("callId", result.toJson().path("callId").asString(null));
        wouldPause.add(step);
        return result.toJson();
    }

    private ObjectNode step(int step, String tool, CallPreview preview, String outcome) {
        ObjectNode line = steps.addObject();
        line.put("seq", step);
        line.put("tool", tool);
        line.put("effect", preview.effect().name());
        line.put("mode", preview.mode().mode().wireName());
        line.put("outcome", outcome);
        return line;
    }

    private Refused refuse(int step, String tool, String why) {
        steps.addObject().put("seq", step).put("tool", tool).put("outcome", "refused");
        refused = new Refused("step " + step + " (" + tool + ") was refused: " + why);
        return refused;
    }

    synchronized ArrayNode steps() {
        return steps.deepCopy();
    }

    synchronized List<Integer> wouldPause() {
        return List.copyOf(wouldPause);
    }
}
