package dev.toolgate.context.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The guard alone: a pure function, no resolution, no I/O. */
class SsrfGuardTest {

    @Test
    void acceptsAPlainHttpsUrlWithDefaults() {
        Target target = SsrfGuard.check("https://example.com");
        assertThat(target).isEqualTo(new Target("https", "example.com", 443, "/", null));
        assertThat(target.hostHeader()).isEqualTo("example.com");
        assertThat(target.isLiteral()).isFalse();
    }

    @Test
    void normalizesCaseTheTrailingDotAndDropsTheFragment() {
        Target target = SsrfGuard.check("HTTP://Status.Example.COM.:8080/a/b?c=d&e=%20f#frag");
        assertThat(target.scheme()).isEqualTo("http");
        assertThat(target.host()).isEqualTo("status.example.com");
        assertThat(target.port()).isEqualTo(8080);
        assertThat(target.requestTarget()).isEqualTo("/a/b?c=d&e=%20f");
        assertThat(target.hostHeader()).isEqualTo("status.example.com:8080");
    }

    @Test
    void aQueryWithoutAPathGetsASlash() {
        assertThat(SsrfGuard.check("http://example.com?x=1").requestTarget()).isEqualTo("/?x=1");
    }

    @Test
    void acceptsPublicLiteralsAndPunycode() {
        Target v4 = SsrfGuard.check("http://8.8.8.8/dns");
        assertThat(v4.isLiteral()).isTrue();
        assertThat(v4.literal().getHostAddress()).isEqualTo("8.8.8.8");
        Target v6 = SsrfGuard.check("https://[2606:4700:4700::1111]:8443/");
        assertThat(v6.isLiteral()).isTrue();
        assertThat(v6.hostHeader()).startsWith("[2606:4700:4700:0:0:0:0:1111]:8443");
        assertThat(SsrfGuard.check("https://xn--bcher-kva.example/").host()).isEqualTo("xn--bcher-kva.example");
        assertThat(SsrfGuard.check("http://example.com:65535/").port()).isEqualTo(65535);
    }

    @ParameterizedTest
    @CsvSource({
        "http://127.0.0.1/, loopback",
        "http://0177.0.0.1/, loopback",
        "http://0x7f.1/, loopback",
        "http://2130706433/, loopback",
        "http://127.1/, loopback",
        "http://169.254.169.254/, link-local",
        "http://0xa9fea9fe/, link-local",
        "http://[::ffff:169.254.169.254]/, IPv4-mapped",
        "http://[64:ff9b::10.1.2.3]/, NAT64",
        "http://[2002:c0a8:101::1]/, 6to4",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/, Teredo",
        "http://[fe80::1%25eth0]/, zone",
        "http://user:secret@example.com/, user info",
        "gopher://example.com/, gopher",
        "http://localhost./, internal name",
        "http://printer/, single-label",
        "http://134744072/, non-canonical",
    })
    void refusalsNameTheirReason(String url, String reason) {
        assertThatThrownBy(() -> SsrfGuard.check(url))
                .isInstanceOfSatisfying(UrlRefusedException.class, e -> {
                    assertThat(e.reason()).contains(reason);
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.REFUSED);
                    assertThat(e.getMessage()).startsWith("URL refused: ");
                });
    }

    @Test
    void aRefusalDoesNotRepeatTheQuery() {
        assertThatThrownBy(() -> SsrfGuard.check("http://127.0.0.1/?token=s3cr3t"))
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void aUrlOverTheLengthLimitIsRefused() {
        String url = "https://example.com/" + "a".repeat(SsrfGuard.MAX_URL_LENGTH);
        assertThatThrownBy(() -> SsrfGuard.check(url)).isInstanceOf(UrlRefusedException.class)
                .hasMessageContaining("longer than 2048");
        assertThatThrownBy(() -> SsrfGuard.check(null)).isInstanceOf(UrlRefusedException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.0", "100.63.255.255",
        "100.128.0.0", "198.17.255.255", "198.20.0.0", "169.253.255.255", "223.255.255.255", "11.0.0.0",
        "192.167.255.255", "192.169.0.0", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e", "64:ff9b::808:808",
        "2002:808:808::1"})
    void publicAddressesPass(String literal) throws UnknownHostException {
        assertThat(SsrfGuard.refusalOf(InetAddress.getByName(literal))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "0.1.2.3", "10.255.255.255", "100.64.0.0", "100.127.255.255", "127.255.255.254",
        "169.254.0.1", "172.16.0.0", "172.31.255.255", "192.0.0.9", "192.0.2.255", "192.88.99.1", "192.168.0.1",
        "198.18.0.0", "198.19.255.255", "198.51.100.1", "203.0.113.255", "224.0.0.251", "239.255.255.250",
        "240.0.0.0", "255.255.255.255", "::", "::1", "::ffff:10.0.0.1", "::10.0.0.1", "64:ff9b::7f00:1",
        "64:ff9b:1::808:808", "100::1", "2001::1", "2001:10::1", "2001:db8::1", "2002:a00:1::", "3fff::1",
        "fc00::1", "fdff:ffff::1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "4000::1", "::ffff:0.0.0.0"})
    void internalAddressesAreRefused(String literal) throws UnknownHostException {
        assertThat(SsrfGuard.refusalOf(InetAddress.getByName(literal))).isPresent();
    }

    @Test
    void everyResolvedAddressIsChecked() throws UnknownHostException {
        Target target = SsrfGuard.check("https://shop.example.com/");
        InetAddress pub = InetAddress.getByName("93.184.216.34");
        InetAddress priv = InetAddress.getByName("10.0.0.7");
        assertThat(SsrfGuard.checkResolved(target, List.of(pub))).isEqualTo(pub);
        assertThatThrownBy(() -> SsrfGuard.checkResolved(target, List.of(pub, priv)))
                .isInstanceOf(UrlRefusedException.class)
                .hasMessageContaining("'shop.example.com' resolves to a private address (10/8) 10.0.0.7")
                .hasMessageContaining("one of its 2 addresses");
        assertThatThrownBy(() -> SsrfGuard.checkResolved(target, List.of()))
                .isInstanceOf(UrlRefusedException.class).hasMessageContaining("no address");
    }

    @Test
    void theTestAllowanceOnlyPassesWhatItMatches() throws UnknownHostException {
        Target target = SsrfGuard.check("https://shop.example.com/");
        InetAddress loop = InetAddress.getByName("127.0.0.1");
        InetAddress priv = InetAddress.getByName("10.0.0.7");
        assertThat(SsrfGuard.checkResolved(target, List.of(loop), InetAddress::isLoopbackAddress)).isEqualTo(loop);
        assertThatThrownBy(() -> SsrfGuard.checkResolved(target, List.of(loop, priv), InetAddress::isLoopbackAddress))
                .isInstanceOf(UrlRefusedException.class);
    }
}
