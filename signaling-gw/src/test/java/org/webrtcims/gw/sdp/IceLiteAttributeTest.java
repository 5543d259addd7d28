package org.webrtcims.gw.sdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IceLiteAttributeTest {
    private static final String FULL = "v=0\r\ns=-\r\nm=audio 1 RTP/AVP 0\r\n";
    private static final String LITE = "v=0\r\ns=-\r\na=ice-lite\r\nm=audio 1 RTP/AVP 0\r\n";

    @Test
    void addedGoesToTheSessionLevelOnce() {
        assertEquals(LITE, IceLiteAttribute.added(FULL));
        assertEquals(LITE, IceLiteAttribute.added(LITE), "not twice");
        assertTrue(IceLiteAttribute.declared(LITE));
        assertFalse(IceLiteAttribute.declared(FULL));
    }

    @Test
    void removedTakesOnlyTheSessionLevelLine() {
        assertEquals(FULL, IceLiteAttribute.removed(LITE));
        assertSame(FULL, IceLiteAttribute.removed(FULL), "an SDP without it comes back as it was");
        String mediaLevel = FULL + "a=ice-lite\r\n"; // not RFC 8839's place: not declared, and left alone
        assertFalse(IceLiteAttribute.declared(mediaLevel));
        assertEquals(mediaLevel, IceLiteAttribute.removed(mediaLevel));
    }
}
