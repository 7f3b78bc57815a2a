package dev.toolgate.codemode;

import dev.toolgate.call.CallContext;
import dev.toolgate.tool.ToolContext;

/** The gate context of the calls a codemode tool makes for its caller. */
final class Contexts {

    private Contexts() {
    }

    /**
     * The caller's context: principal, tenant, session, automation and transport of the codemode
     * call, and its client channel, so a client that asked for progress hears each step of the script's
     * run. A tool's context does not carry the conversation's permission mode, so the code's calls
     * are made in the default mode (mutations wait for consent unless policy allows them).
     */
    static CallContext of(ToolContext context) {
        return CallContext.of(context.principal())
                .withTenant(context.tenantId())
                .withSession(context.sessionId())
                .withAutomation(context.automationId())
                .withTransport(context.transport())
                .withChannel(context.channel());
    }
}
