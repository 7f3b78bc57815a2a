package dev.toolgate.context.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hostile corpus: every URL is refused with a reason by the probe itself (guard, resolution and
 * all, with no test allowance), and not one of them opens a connection.
 */
class HostileUrlsTest {

    /** Names the injected resolver answers, each pointing somewhere internal (or partly internal). */
    static final Map<String, List<String>> DNS = Map.of(
            "internal.example-corp.com", List.of("10.0.0.5"),
            "mixed.example-shop.com", List.of("93.184.216.34", "10.0.0.1"),
            "v6mixed.example.net", List.of("2606:2800:220:1:248:1893:25c8:1946", "fd00::1"),
            "metadata-alias.example.org", List.of("169.254.169.254"),
            "127.0.0.1.nip.io", List.of("127.0.0.1"),
            "nat64.example.org", List.of("64:ff9b::a00:1"),
            "compat.example.org", List.of("::7f00:1"),
            "empty.example.org", List.of(),
            "unspecified.example.org", List.of("0.0.0.0"),
            "cgnat.example.org", List.of("100.100.100.200"));

    static final List<String> CORPUS = List.of(
            // schemes and structure
            "file:///etc/passwd",
            "gopher://127.0.0.1:70/_HELO",
            "ftp://example.com/",
            "javascript:alert(1)",
            "dict://example.com:11211/",
            "http:/example.com/",
            "//example.com/path",
            "http://",
            "http://:80/",
            // credentials and parser differentials
            "http://user:pass@example.com/",
            "http://user@example.com/",
            "http://example.com@127.0.0.1/",
            "http://127.0.0.1#@example.com/",
            "http://example.com\\@127.0.0.1/",
            "http://exa mple.com/",
            " http://example.com/",
            "http://example.com/\r\nX-Injected: 1",
            "http://example.com/\tpath",
            "http://ex%61mple.com/",
            "http://%31%32%37.0.0.1/",
            "http://bücher.de/",
            "http://ｌｏｃａｌｈｏｓｔ/",
            "http://example.com:0/",
            "http://example.com:65536/",
            "http://example.com:/",
            "http://example.com:080/",
            "http://example.com:8o/",
            // internal names
            "http://localhost/",
            "http://LOCALHOST:8080/",
            "http://localhost./",
            "http://api.localhost/",
            "http://printer.local/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://nas.lan/",
            "http://router.home.arpa/",
            "http://wiki.intranet/",
            "http://git.corp/",
            "http://intranet/",
            "http://metadata/",
            "http://1.0.0.127.in-addr.arpa/",
            "http://example..com/",
            "http://.example.com/",
            "http://-bad-.example.com/",
            // IPv4 literal forms
            "http://127.0.0.1/",
            "http://127.1/",
            "http://127.0.1/",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://0x7f.0.0.1/",
            "http://0x7f000001/",
            "http://017700000001/",
            "http://0x7f.1/",
            "http://127.000.000.001/",
            "http://0/",
            "http://0.0.0.0/",
            "http://10.0.0.1/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://0xa9fea9fe/",
            "http://2852039166/",
            "http://100.64.0.1/",
            "http://100.100.100.200/",
            "http://224.0.0.1/",
            "http://239.255.255.250/",
            "http://240.0.0.1/",
            "http://255.255.255.255/",
            "http://198.18.0.1/",
            "http://198.19.255.255/",
            "http://192.0.2.1/",
            "http://198.51.100.7/",
            "http://203.0.113.9/",
            "http://192.0.0.8/",
            "http://8.8.8.8.8/",
            "http://256.0.0.1/",
            "http://1.2.3.09/",
            "http://0x/",
            "http://example.123/",
            "http://8.8.2056/",
            "http://134744072/",
            // IPv6 literal forms
            "http://[::1]/",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:169.254.169.254]/",
            "http://[::127.0.0.1]/",
            "http://[::ffff:8.8.8.8]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[64:ff9b:1::a00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[2002:c0a8:101::1]/",
            "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
            "http://[fc00::1]/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://[fe80::1%25eth0]/",
            "http://[fe80::1%eth0]/",
            "http://[fec0::1]/",
            "http://[ff02::1]/",
            "http://[2001:db8::1]/",
            "http://[::1]:8080/",
            "http://::1/",
            "http://[::1/",
            "http://[1:2:3:4:5:6:7:8:9]/",
            "http://[::1::2]/",
            "http://[100::1]/",
            "http://[::1]x/",
            // names that resolve inward, through the injected resolver
            "http://internal.example-corp.com/",
            "http://mixed.example-shop.com/",
            "https://v6mixed.example.net/",
            "http://metadata-alias.example.org/latest/meta-data/",
            "http://127.0.0.1.nip.io/",
            "http://nat64.example.org/",
            "http://compat.example.org/",
            "http://empty.example.org/",
            "http://unspecified.example.org/",
            "http://cgnat.example.org/");

    private final List<String> connections = new CopyOnWriteArrayList<>();

    static Stream<String> corpus() {
        return CORPUS.stream();
    }

    @Test
    void theCorpusIsLargeEnoughAndHasNoDuplicates() {
        assertThat(CORPUS).hasSizeGreaterThanOrEqualTo(60).doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void everyHostileUrlIsRefusedWithAReasonAndNothingConnects(String url) {
        UrlProbe probe = new UrlProbe(ProbeSettings.builder().resolver(HostileUrlsTest::resolve).build(),
                (socket, address, timeout) -> connections.add(address.toString()));
        for (ProbeMethod method : ProbeMethod.values()) {
            assertThatThrownBy(() -> probe.probe(url, method))
                    .as(url)
                    .isInstanceOfSatisfying(UrlRefusedException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ProbeException.Kind.REFUSED);
                        assertThat(e.reason()).isNotBlank();
                    });
        }
        assertThat(connections).as("no connection for " + url).isEmpty();
    }

    static List<InetAddress> resolve(String host) throws UnknownHostException {
        List<String> answers = DNS.get(host);
        if (answers == null) {
            throw new UnknownHostException(host);
        }
        List<InetAddress> out = new ArrayList<>();
        for (String literal : answers) {
            out.add(InetAddress.getByName(literal));
        }
        return out;
    }
}
