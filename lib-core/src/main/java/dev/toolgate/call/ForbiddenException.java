package dev.toolgate.call;

import java.util.Set;

/**
 * The principal may not do this: it lacks a required rule (named in the message, for example
 * {@code Forbidden: incident.create (missing permission: incident.incident.manage)}), or it is a
 * service principal, or it lacks the approver rule for the inbox.
 */
public class ForbiddenException extends ProposeApplyException {

    private static final long serialVersionUID = 1L;

    private final String toolName;
    private final Set<String> missingRules;

    public ForbiddenException(String message, String toolName, Set<String> missingRules) {
        super(message);
        this.toolName = toolName;
        this.missingRules = Set.copyOf(missingRules);
    }

    /** The tool concerned. */
    public String toolName() {
        return toolName;
    }

    /** The rules the principal lacks; empty for a service principal. */
    public Set<String> missingRules() {
        return missingRules;
    }

    @Override
    public String code() {
        return "forbidden";
    }
}
