package dev.toolgate.call;

/**
 * What one sweep did.
 *
 * @param expired     proposals whose time ran out, now {@code expired}
 * @param interrupted claimed calls whose outcome never arrived, now {@code interrupted} (in doubt)
 * @param purged      rows the retention no longer keeps, deleted
 */
public record SweepResult(int expired, int interrupted, PurgeResult purged) {
}
