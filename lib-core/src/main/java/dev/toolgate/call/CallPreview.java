package dev.toolgate.call;

import dev.toolgate.json.FieldChange;
import dev.toolgate.policy.Disposition;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.tool.Effect;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * What a call would do, found without doing it: the gate's checks ran (the tool exists, the caller
 * holds its rules, the arguments are valid, the call is metered), policy was consulted, and a
 * mutation's dry-run ran; nothing was stored as a proposal and nothing changed. A script's test run
 * answers its mutations with these.
 *
 * @param toolName    the tool
 * @param effect      the tool's effect
 * @param disposition what a real call would do now: run, propose and wait, propose and apply, or be denied
 * @param mode        the resolved mode behind it
 * @param summary     the dry-run's one-line summary (redacted), or null for a read or a denied call
 * @param payload     what applying would execute with (the dry-run's payload), or null for a read or a denied call
 * @param diff        the dry-run's field changes (redacted, capped), empty when none
 */
public record CallPreview(String toolName, Effect effect, Disposition disposition, ModeResolution mode, String summary,
                          JsonNode payload, List<FieldChange> diff) {

    /** Checks the components; see the class description for what each must hold. */
    public CallPreview {
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(disposition, "disposition");
        Objects.requireNonNull(mode, "mode");
        diff = diff == null ? List.of() : List.copyOf(diff);
    }

    /** True if a real call would wait for a person's (or a policy's) consent. */
    public boolean wouldPause() {
        return disposition == Disposition.PROPOSE_AND_WAIT;
    }
}
