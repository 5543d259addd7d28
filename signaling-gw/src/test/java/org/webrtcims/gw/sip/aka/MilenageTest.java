package org.webrtcims.gw.sip.aka;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Milenage against the conformance test data of 3GPP TS 35.208 §4.3, test sets 1-6. */
class MilenageTest {
    record Set(int n, String k, String opc, String rand, String sqn, String amf, String f1, String f1s, String f2,
               String f5, String f3, String f4, String f5s) { }

    static Stream<Set> sets() {
        return Stream.of(
            new Set(1, "465b5ce8b199b49faa5f0a2ee238a6bc", "cd63cb71954a9f4e48a5994e37a02baf", "23553cbe9637a89d218ae64dae47bf35",
                "ff9bb4d0b607", "b9b9", "4a9ffac354dfafb3", "01cfaf9ec4e871e9", "a54211d5e3ba50bf", "aa689c648370",
                "b40ba9a3c58b2a05bbf0d987b21bf8cb", "f769bcd751044604127672711c6d3441", "451e8beca43b"),
            new Set(2, "0396eb317b6d1c36f19c1c84cd6ffd16", "53c15671c60a4b731c55b4a441c0bde2", "c00d603103dcee52c4478119494202e8",
                "fd8eef40df7d", "af17", "5df5b31807e258b0", "a8c016e51ef4a343", "d3a628ed988620f0", "c47783995f72",
                "58c433ff7a7082acd424220f2b67c556", "21a8c1f929702adb3e738488b9f5c5da", "30f1197061c1"),
            new Set(3, "fec86ba6eb707ed08905757b1bb44b8f", "1006020f0a478bf6b699f15c062e42b3", "9f7c8d021accf4db213ccff0c7f71a6a",
                "9d0277595ffc", "725c", "9cabc3e99baf7281", "95814ba2b3044324", "8011c48c0c214ed2", "33484dc2136b",
                "5dbdbb2954e8f3cde665b046179a5098", "59a92d3b476a0443487055cf88b2307b", "deacdd848cc6"),
            new Set(4, "9e5944aea94b81165c82fbf9f32db751", "a64a507ae1a2a98bb88eb4210135dc87", "ce83dbc54ac0274a157c17f80d017bd6",
                "0b604a81eca8", "9e09", "74a58220cba84c49", "ac2cc74a96871837", "f365cd683cd92e96", "f0b9c08ad02e",
                "e203edb3971574f5a94b0d61b816345d", "0c4524adeac041c4dd830d20854fc46b", "6085a86c6f63"),
            new Set(5, "4ab1deb05ca6ceb051fc98e77d026a84", "dcf07cbd51855290b92a07a9891e523e", "74b0cd6031a1c8339b2b6ce2b8c4a186",
                "e880a1b580b6", "9f07", "49e785dd12626ef2", "9e85790336bb3fa2", "5860fc1bce351e7e", "31e11a609118",
                "7657766b373d1c2138f307e3de9242f9", "1c42e960d89b8fa99f2744e0708ccb53", "fe2555e54aa9"),
            new Set(6, "6c38a116ac280c454f59332ee35c8c4f", "3803ef5363b947c6aaa225e58fae3934", "ee6466bc96202c5a557abbeff8babf63",
                "414b98222181", "4464", "078adfb488241a57", "80246b8d0186bcf1", "16c8233f05a0ac28", "45b0f69ab06c",
                "3f8c7587fe8e4b233af676aede30ba3b", "a7466cc1e6b2a1337d49d3b66e95d7b4", "1f53cd2b1113"));
    }

    static byte[] h(String hex) { return HexFormat.of().parseHex(hex); }
    static String x(byte[] b) { return HexFormat.of().formatHex(b); }

    @ParameterizedTest(name = "TS 35.208 test set {0}")
    @MethodSource("sets")
    void matchesTheConformanceData(Set s) {
        Milenage m = new Milenage(h(s.k()), h(s.opc()));
        byte[] rand = h(s.rand());
        assertEquals(s.f1(), x(m.f1(rand, h(s.sqn()), h(s.amf()))), "f1 (MAC-A)");
        assertEquals(s.f1s(), x(m.f1star(rand, h(s.sqn()), h(s.amf()))), "f1* (MAC-S)");
        assertEquals(s.f2(), x(m.f2(rand)), "f2 (RES)");
        assertEquals(s.f3(), x(m.f3(rand)), "f3 (CK)");
        assertEquals(s.f4(), x(m.f4(rand)), "f4 (IK)");
        assertEquals(s.f5(), x(m.f5(rand)), "f5 (AK)");
        assertEquals(s.f5s(), x(m.f5star(rand)), "f5* (AK for resync)");
    }

    @Test
    void opcFromOp() { // TS 35.208 test set 1: OP -> OPc
        assertEquals("cd63cb71954a9f4e48a5994e37a02baf",
                x(Milenage.opc(h("465b5ce8b199b49faa5f0a2ee238a6bc"), h("cdc202d5123e20f62b6d676ac72cb318"))));
    }

    @Test
    void refusesWrongSizes() {
        assertThrows(IllegalArgumentException.class, () -> new Milenage(new byte[15], new byte[16]));
        Milenage m = new Milenage(new byte[16], new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> m.f2(new byte[8]));
        assertThrows(IllegalArgumentException.class, () -> m.f1(new byte[16], new byte[5], new byte[2]));
    }
}
