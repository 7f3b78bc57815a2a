package dev.toolgate.json;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModelTextTest {

    @Test
    void classNamesOfThrowablesAreTakenOutAndTheRestIsKept() {
        assertThat(ModelText.withoutClassNames("IllegalArgumentException: no catalog system 'null'"))
                .isEqualTo("no catalog system 'null'");
        assertThat(ModelText.withoutClassNames("RuntimeException: java.lang.IllegalStateException: backend down"))
                .isEqualTo("backend down");
        assertThat(ModelText.withoutClassNames("call failed: com.acme.db.PoolTimeoutException: pool exhausted after 30 s"))
                .isEqualTo("call failed: pool exhausted after 30 s");
        assertThat(ModelText.withoutClassNames("NullPointerException")).isEqualTo("failed without a message");
        assertThat(ModelText.withoutClassNames("java.lang.StackOverflowError")).isEqualTo("failed without a message");
        assertThat(ModelText.withoutClassNames("incident.update timed out after 30 s")).isEqualTo("incident.update timed out after 30 s");
        assertThat(ModelText.withoutClassNames("DeniedError at 2:3: x.y was denied")).isEqualTo("DeniedError at 2:3: x.y was denied");
        assertThat(ModelText.withoutClassNames("the Error: field was empty")).isEqualTo("the Error: field was empty");
        assertThat(ModelText.withoutClassNames("")).isEmpty();
        assertThat(ModelText.withoutClassNames(null)).isNull();
    }
}
