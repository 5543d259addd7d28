package org.webrtcims.gw.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DtmfRequestTest {
    @Test
    void allSixteenKeysAndTheDefaultDuration() {
        DtmfRequest r = DtmfRequest.of("0123456789*#ABCD", null);
        assertEquals("0123456789*#ABCD", r.digits());
        assertEquals(100, r.durationMs());
    }

    @Test
    void durationBoundsAreInclusive() {
        assertEquals(40, DtmfRequest.of("1", 40).durationMs());
        assertEquals(2000, DtmfRequest.of("1", 2000).durationMs());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "12x", "a", "1 2", "E", "123456789012345678901234567890123"})
    void badDigitsAreABadMessage(String digits) {
        CallFailure f = assertThrows(CallFailure.class, () -> DtmfRequest.of(digits, null));
        assertEquals("bad-message", f.code());
        assertTrue(f.getMessage().contains("'digits'"), f.getMessage());
    }

    @Test
    void missingDigitsAreABadMessage() {
        assertEquals("bad-message", assertThrows(CallFailure.class, () -> DtmfRequest.of(null, 100)).code());
    }

    @ParameterizedTest
    @ValueSource(ints = {39, 2001, 0, -5})
    void durationOutsideTheRangeIsABadMessage(int ms) {
        CallFailure f = assertThrows(CallFailure.class, () -> DtmfRequest.of("1", ms));
        assertEquals("bad-message", f.code());
        assertTrue(f.getMessage().contains("40..2000"), f.getMessage());
    }
}
