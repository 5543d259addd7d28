package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BencodeTest {

    private static String enc(Object v) {
        return new String(Bencode.encode(v), StandardCharsets.UTF_8);
    }

    private static Object dec(String s) {
        return Bencode.decode(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void encodesScalarsPerSpec() {
        assertEquals("4:spam", enc("spam"));
        assertEquals("0:", enc(""));
        assertEquals("i3e", enc(3));
        assertEquals("i-3e", enc(-3L));
        assertEquals("i0e", enc(0));
        assertEquals("l4:spami42ee", enc(List.of("spam", 42)));
        assertEquals("3:\u0000\u0001\u0002", enc(new byte[] {0, 1, 2}));
    }

    @Test
    void writesDictionaryKeysSortedAsRawBytes() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("zeta", 1);
        m.put("a-b", 2);
        m.put("é", 3);       // UTF-8 C3 A9: after every ASCII key
        m.put("Z", 4);        // 0x5A sorts before lower case
        m.put("a b", 5);      // space 0x20 before '-' 0x2D
        assertEquals("d1:Zi4e3:a bi5e3:a-bi2e4:zetai1e2:éi3ee", enc(m));
    }

    @Test
    void roundTripsNestedStructures() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("packets", 705L);
        inner.put("list", List.of("a", List.of(1L, -2L), Map.of("k", "v")));
        Map<String, Object> outer = new LinkedHashMap<>();
        outer.put("result", "ok");
        outer.put("stats", inner);
        outer.put("empty", List.of());
        outer.put("emptyDict", Map.of());
        Object back = Bencode.decode(Bencode.encode(outer));
        assertEquals(Map.of("result", "ok", "stats", inner, "empty", List.of(), "emptyDict", Map.of()), back);
        assertInstanceOf(LinkedHashMap.class, back);
        assertInstanceOf(Long.class, ((Map<?, ?>) ((Map<?, ?>) back).get("stats")).get("packets"));
    }

    @Test
    void decodesUnsortedKeysInReceivedOrder() {
        // rtpengine does not promise sorted keys; the decoder must accept them as they come.
        Map<?, ?> m = (Map<?, ?>) dec("d6:result2:ok3:sdp3:v=0e");
        assertEquals(List.of("result", "sdp"), List.copyOf(m.keySet()));
    }

    @Test
    void stringLengthsCountUtf8BytesNotChars() {
        String s = "Grüße €\r\n";                       // 7 chars + CRLF, 13 bytes in UTF-8
        byte[] encoded = Bencode.encode(s);
        assertEquals("13:", new String(encoded, 0, 3, StandardCharsets.US_ASCII));
        assertEquals(s, Bencode.decode(encoded));
        // A string containing ':' and 'e' and digits must not confuse the parser.
        assertEquals(List.of("1:e", "i2e"), Bencode.decode(Bencode.encode(List.of("1:e", "i2e"))));
    }

    @Test
    void largeAndBoundaryIntegers() {
        assertEquals(Long.MAX_VALUE, dec("i9223372036854775807e"));
        assertEquals(Long.MIN_VALUE, dec("i-9223372036854775808e"));
        assertArrayEquals("i9223372036854775807e".getBytes(StandardCharsets.US_ASCII),
                Bencode.encode(Long.MAX_VALUE));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "i", "i12", "ie", "i-e", "i-0e", "i03e", "i1x2e", "i99999999999999999999e",
        "5:abc", "3", "-1:a", "03:abc", "l", "li1e", "d", "d3:key", "di1ei2ee", "dl1:ae1:ve",
        "x", "4:spamX", "i1ei2e", "e"
    })
    void rejectsMalformedInput(String bad) {
        assertThrows(BencodeException.class, () -> dec(bad));
    }

    @Test
    void rejectsHostileNesting() {
        String deep = "l".repeat(10_000) + "e".repeat(10_000);
        assertThrows(BencodeException.class, () -> dec(deep));
    }

    @Test
    void rejectsUnencodableValues() {
        assertThrows(BencodeException.class, () -> Bencode.encode(1.5));
        assertThrows(BencodeException.class, () -> Bencode.encode(null));
        assertThrows(BencodeException.class, () -> Bencode.encode(Map.of(1, "x")));
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("k", null);
        assertThrows(BencodeException.class, () -> Bencode.encode(withNull));
    }

    @Test
    void rejectsNullData() {
        assertThrows(BencodeException.class, () -> Bencode.decode(null));
    }
}
