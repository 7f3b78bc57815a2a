package dev.toolgate.codemode;

import static org.assertj.core.api.Assertions.assertThat;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.junit.jupiter.api.Test;

/** The GraalJS runtime resolves from Maven Central and evaluates on the Java 17 baseline. */
class GraalSmokeTest {
    @Test
    void evaluatesJavaScript() {
        try (Engine engine = Engine.newBuilder("js").option("engine.WarnInterpreterOnly", "false").build();
             Context context = Context.newBuilder("js").engine(engine).build()) {
            assertThat(context.eval("js", "[1, 2, 3].map(x => x * 2).join(',')").asString()).isEqualTo("2,4,6");
        }
    }
}
