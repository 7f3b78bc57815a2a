package dev.toolgate.codemode;

import dev.toolgate.execution.Program;
import dev.toolgate.execution.ProgramException;
import dev.toolgate.execution.Run;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.Json;
import dev.toolgate.tool.ToolValidationException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SortedSet;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * The program {@value Codemode#RUN}: runs the script of the run's input in the sandbox, each tool
 * call a step of the run. On a replay the same source runs again; the steps in the log are answered
 * from it, {@code Math.random} follows a sequence seeded by the run's id and {@code Date.now} is the
 * run's start, so the script makes the same calls; if it does not, the run fails as diverged.
 *
 * <p>The run's input is {@code {"code": "...", "limits": {...}}}; the limits were fixed when the run
 * started, so a replay runs under the same ones.
 */
final class CodemodeProgram implements Program {

    private final Sandbox sandbox;

    CodemodeProgram(Sandbox sandbox) {
        this.sandbox = sandbox;
    }

    /** The input of a run of {@code code} under {@code limits}. */
    static JsonNode input(String code, Codemode.Limits limits) {
        return Json.object().put("code", code).set("limits", limits.toJson());
    }

    @Override
    public Object run(Run run) {
        JsonNode input = run.input();
        JsonNode code = input.path("code");
        if (!code.isString()) {
            throw new ProgramException("the run's input has no code (a string at /code)");
        }
        Codemode.Limits limits = Codemode.Limits.fromJson(input.path("limits"));
        SortedSet<String> tools = new TreeSet<>();
        for (String name : run.tools()) {
            if (!name.startsWith(Codemode.PLUGIN + ".")) {
                tools.add(name);
            }
        }
        Logs logs = new Logs(limits.maxLogLines(), run::log);
        Sandbox.ToolCaller caller = (tool, argsJson) -> call(run, tools, tool, argsJson);
        Sandbox.Result result = sandbox.run(code.asString(), new Sandbox.Bindings(caller, tools, seed(run.executionId()),
                run.startedAt().toEpochMilli(), logs), limits.sandbox());
        String dropped = logs.droppedLine();
        if (dropped != null) {
            run.log(dropped);
        }
        if (result instanceof Sandbox.Result.Failed failed) {
            throw new ProgramException(failed.error().describe());
        }
        return Json.parse(((Sandbox.Result.Returned) result).json());
    }

    /** One step: the gate's refusals become errors the script may catch; a pause or a refusal ends the attempt. */
    private static String call(Run run, SortedSet<String> tools, String tool, String argsJson) {
        if (!tools.contains(tool)) {
            throw new Sandbox.ToolFailure("TypeError", "there is no tool " + tool + " for this caller", null);
        }
        try {
            return Json.write(run.call(tool, Json.parse(argsJson)));
        } catch (PolicyDeniedException e) {
            throw Failures.denied(tool, e);
        } catch (ToolValidationException e) {
            throw Failures.invalid(tool, e);
        } catch (ToolExecutionException e) {
            throw Failures.failed(tool, e);
        }
    }

    /** The run's random seed: the first 8 bytes of the SHA-256 of its id. */
    static long seed(String executionId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(executionId.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(digest, 0, Long.BYTES).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
