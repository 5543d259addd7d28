package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DtmfLogEventTest {
    /** A datagram rtpengine 10.5.3.5 sent to --dtmf-log-dest for an RFC 4733 '5' from the UE (tag B). */
    static final String RECORDED = "{\"callid\":\"exp-1795445384\",\"source_tag\":\"B\",\"tags\":[\"A\",\"B\"],"
            + "\"type\":\"DTMF\",\"timestamp\":1795445386,\"source_ip\":\"127.0.0.1\",\"event\":5,\"duration\":140,\"volume\":10}";

    @Test
    void parsesTheRecordedRtpengineDatagram() {
        DtmfLogEvent ev = DtmfLogEvent.parse(RECORDED).orElseThrow();
        assertEquals(new DtmfLogEvent("exp-1795445384", "B", 5, 140), ev);
        assertEquals(Optional.of("5"), ev.digit());
    }

    @Test
    void eventCodesMapToTheRfc4733Keys() {
        assertEquals(Optional.of("*"), new DtmfLogEvent("c", "t", 10, 0).digit());
        assertEquals(Optional.of("#"), new DtmfLogEvent("c", "t", 11, 0).digit());
        assertEquals(Optional.of("A"), new DtmfLogEvent("c", "t", 12, 0).digit());
        assertEquals(Optional.of("D"), new DtmfLogEvent("c", "t", 15, 0).digit());
        assertTrue(new DtmfLogEvent("c", "t", 16, 0).digit().isEmpty(), "16 is flash, not a key");
    }

    @Test
    void rejectsWhatIsNotADtmfRecord() {
        assertTrue(DtmfLogEvent.parse("not json").isEmpty());
        assertTrue(DtmfLogEvent.parse("[1,2]").isEmpty());
        assertTrue(DtmfLogEvent.parse(RECORDED.replace("\"DTMF\"", "\"other\"")).isEmpty());
        assertTrue(DtmfLogEvent.parse("{\"type\":\"DTMF\",\"source_tag\":\"B\",\"event\":5}").isEmpty(), "no callid");
        assertTrue(DtmfLogEvent.parse(RECORDED.replace("\"event\":5", "\"event\":\"5\"")).isEmpty());
    }

    @Test
    void missingDurationIsZero() {
        assertEquals(0, DtmfLogEvent.parse("{\"type\":\"DTMF\",\"callid\":\"c\",\"source_tag\":\"t\",\"event\":1}")
                .orElseThrow().durationMs());
    }
}
