package dev.toolgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeOverride;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.spi.ToolgateStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyCacheTest {

    private static final PrincipalRef OPS = new PrincipalRef(PrincipalKind.USER, "ops");
    private final InMemoryStore backing = new InMemoryStore();

    private static ModeOverride tenant(Mode mode) {
        return new ModeOverride(OverrideScope.TENANT, "acme", "t.x", mode, OPS, null);
    }

    @Test
    void readsAreReusedAndEveryWriteThroughTheCacheIsSeenAtOnce() {
        PolicyStore cached = PolicyCache.around(backing, Duration.ofMinutes(1)).policies();
        assertThat(cached.view("t.x", "acme", null)).isEqualTo(PolicyView.EMPTY);

        backing.policies().putOverride(tenant(Mode.DENY)); // behind the cache's back, as another instance would
        assertThat(cached.view("t.x", "acme", null)).as("reused within the time to live").isEqualTo(PolicyView.EMPTY);

        cached.putOverride(tenant(Mode.ALLOW));
        assertThat(cached.view("t.x", "acme", null).tenantOverride()).get().satisfies(o -> assertThat(o.mode()).isEqualTo(Mode.ALLOW));
        cached.removeOverride(OverrideScope.TENANT, "acme", "t.x");
        assertThat(cached.view("t.x", "acme", null).tenantOverride()).isEmpty();
        cached.reviewIfAbsent(new ToolReview("acme", "t.x", "f1", OPS, null));
        assertThat(cached.view("t.x", "acme", null).review()).isPresent();
        cached.putReview(new ToolReview("acme", "t.x", "f2", OPS, null));
        assertThat(cached.view("t.x", "acme", null).review().orElseThrow().fingerprint()).isEqualTo("f2");
    }

    @Test
    void aChangeFromElsewhereIsSeenAfterTheTimeToLive() throws InterruptedException {
        PolicyStore cached = PolicyCache.around(backing, Duration.ofMillis(50)).policies();
        assertThat(cached.view("t.x", "acme", null)).isEqualTo(PolicyView.EMPTY);
        backing.policies().putOverride(tenant(Mode.DENY));
        Thread.sleep(120);
        assertThat(cached.view("t.x", "acme", null).tenantOverride()).get().satisfies(o -> assertThat(o.mode()).isEqualTo(Mode.DENY));
    }

    @Test
    void aZeroTimeToLiveReadsTheStoreEveryTime() {
        ToolgateStore store = PolicyCache.around(backing, Duration.ZERO);
        assertThat(store).isSameAs(backing);
    }
}
