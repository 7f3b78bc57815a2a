package dev.toolgate.call;

import dev.toolgate.access.Principal;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.ClientChannel;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Who is calling and in which setting: the principal, tenant, session, automation, transport, the
 * conversation's permission mode, the session kind, and optionally the current {@link Turn}.
 * Immutable; start with {@link #of(Principal)} and refine with the {@code with...} methods.
 *
 * <pre>{@code
 * CallContext ctx = CallContext.of(user).withTenant("acme").withSession(conversationId).withTransport("chat");
 * }</pre>
 *
 * @param principal      who the call is for
 * @param tenantId       tenant (organization) id, or null
 * @param sessionId      conversation or session id, or null (then no pending cap applies)
 * @param automationId   automation id, or null
 * @param transport      how the call arrived: 1-32 characters of {@code a-z0-9_-}, such as {@code mcp}
 * @param permissionMode APPROVE (default) or AUTO
 * @param sessionKind    INTERACTIVE (default) or UNATTENDED
 * @param turn           the current model turn for the duplicate guard, or null
 * @param channel        the way back to the calling client for the tool's execution (progress, log
 *                       messages, sampling, elicitation), set by a transport such as MCP; never stored in the
 *                       audit trail. {@link ClientChannel#none()} by default; a dry-run never sees it
 */
public record CallContext(Principal principal, String tenantId, String sessionId, String automationId, String transport,
                          PermissionMode permissionMode, SessionKind sessionKind, Turn turn, ClientChannel channel) {

    private static final Pattern TRANSPORT = Pattern.compile("[a-z0-9_-]{1,32}");
    private static final int MAX_ID = 200;

    /** Checks the components; see the class description for what each must hold. */
    public CallContext {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(permissionMode, "permissionMode");
        Objects.requireNonNull(sessionKind, "sessionKind");
        if (transport == null || !TRANSPORT.matcher(transport).matches()) {
            throw new IllegalArgumentException("transport must be 1-32 characters of a-z0-9_-, got '" + transport + "'");
        }
        checkId("tenantId", tenantId);
        checkId("sessionId", sessionId);
        checkId("automationId", automationId);
        channel = channel == null ? ClientChannel.none() : channel;
    }

    /** A context without a way back to the client ({@link ClientChannel#none()}). */
    public CallContext(Principal principal, String tenantId, String sessionId, String automationId, String transport,
                       PermissionMode permissionMode, SessionKind sessionKind, Turn turn) {
        this(principal, tenantId, sessionId, automationId, transport, permissionMode, sessionKind, turn, null);
    }

    /** A context for {@code principal} with no tenant or session, transport {@code java}, APPROVE, INTERACTIVE. */
    public static CallContext of(Principal principal) {
        return new CallContext(principal, null, null, null, "java", PermissionMode.APPROVE, SessionKind.INTERACTIVE, null);
    }

    /** This context for another principal (for example after the host narrowed its scopes). */
    public CallContext withPrincipal(Principal v) {
        return new CallContext(v, tenantId, sessionId, automationId, transport, permissionMode, sessionKind, turn, channel);
    }

    /** This context in a tenant (organization); null for none. */
    public CallContext withTenant(String v) {
        return new CallContext(principal, v, sessionId, automationId, transport, permissionMode, sessionKind, turn, channel);
    }

    /** This context in a session or conversation; null for none (then no pending cap applies). */
    public CallContext withSession(String v) {
        return new CallContext(principal, tenantId, v, automationId, transport, permissionMode, sessionKind, turn, channel);
    }

    /** This context for an automation; null for none. */
    public CallContext withAutomation(String v) {
        return new CallContext(principal, tenantId, sessionId, v, transport, permissionMode, sessionKind, turn, channel);
    }

    /** This context arriving over another transport, such as {@code mcp} or {@code chat}. */
    public CallContext withTransport(String v) {
        return new CallContext(principal, tenantId, sessionId, automationId, v, permissionMode, sessionKind, turn, channel);
    }

    /** This context in another permission mode. */
    public CallContext withPermissionMode(PermissionMode v) {
        return new CallContext(principal, tenantId, sessionId, automationId, transport, v, sessionKind, turn, channel);
    }

    /** This context in another kind of session. */
    public CallContext withSessionKind(SessionKind v) {
        return new CallContext(principal, tenantId, sessionId, automationId, transport, permissionMode, v, turn, channel);
    }

    /** This context in a model turn, for the duplicate-call guard; null for none. */
    public CallContext withTurn(Turn v) {
        if (v == turn) {
            return this; // the engine drops the turn of every step's context: nothing to copy or check again
        }
        return new CallContext(principal, tenantId, sessionId, automationId, transport, permissionMode, sessionKind, v, channel);
    }

    /**
     * This context with a way back to the calling client, for transports that have one (MCP); null for
     * none. The channel reaches the tool's execution only, never a dry-run, and is not persisted.
     */
    public CallContext withChannel(ClientChannel v) {
        return new CallContext(principal, tenantId, sessionId, automationId, transport, permissionMode, sessionKind, turn, v);
    }

    private static void checkId(String name, String value) {
        if (value != null && (value.isBlank() || value.length() > MAX_ID || hasControl(value))) {
            throw new IllegalArgumentException(name + " must be 1-" + MAX_ID + " characters without control characters");
        }
    }

    /** Whether {@code value} holds a control character (a loop: a stream per id was measurable per call). */
    private static boolean hasControl(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                return true;
            }
        }
        return false;
    }
}
