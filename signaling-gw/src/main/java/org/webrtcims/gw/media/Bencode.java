package org.webrtcims.gw.media;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bencode (BitTorrent spec) as used by the rtpengine ng protocol.
 * Byte strings are decoded as UTF-8 Java Strings; lengths are always counted in bytes.
 * Dictionary keys are written sorted by their raw UTF-8 bytes, but decoding accepts any
 * order because rtpengine does not promise sorted keys in its replies.
 */
public final class Bencode {
    /** Guards the recursive decoder against stack exhaustion from hostile nesting. */
    private static final int MAX_DEPTH = 128;

    private Bencode() {
    }

    public static byte[] encode(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, value);
        return out.toByteArray();
    }

    public static Object decode(byte[] data) {
        if (data == null) {
            throw new BencodeException("no data");
        }
        Decoder d = new Decoder(data);
        Object value = d.value(0);
        if (d.pos != data.length) {
            throw new BencodeException("trailing data at offset " + d.pos);
        }
        return value;
    }

    private static void write(ByteArrayOutputStream out, Object value) {
        if (value instanceof String s) {
            writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
        } else if (value instanceof byte[] b) {
            writeBytes(out, b);
        } else if (value instanceof Long || value instanceof Integer
                || value instanceof Short || value instanceof Byte) {
            writeAscii(out, "i" + ((Number) value).longValue() + "e");
        } else if (value instanceof List<?> list) {
            out.write('l');
            for (Object item : list) {
                write(out, item);
            }
            out.write('e');
        } else if (value instanceof Map<?, ?> map) {
            writeDict(out, map);
        } else {
            throw new BencodeException("cannot bencode "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
    }

    private static void writeDict(ByteArrayOutputStream out, Map<?, ?> map) {
        List<Map.Entry<byte[], Object>> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new BencodeException("dictionary key is not a String: " + e.getKey());
            }
            entries.add(Map.entry(key.getBytes(StandardCharsets.UTF_8), valueOrFail(key, e.getValue())));
        }
        entries.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
        out.write('d');
        for (Map.Entry<byte[], Object> e : entries) {
            writeBytes(out, e.getKey());
            write(out, e.getValue());
        }
        out.write('e');
    }

    private static Object valueOrFail(String key, Object value) {
        if (value == null) {
            throw new BencodeException("null value for key " + key);
        }
        return value;
    }

    private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
        writeAscii(out, bytes.length + ":");
        out.writeBytes(bytes);
    }

    private static void writeAscii(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static final class Decoder {
        private final byte[] data;
        private int pos;

        Decoder(byte[] data) {
            this.data = data;
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw new BencodeException("nesting deeper than " + MAX_DEPTH);
            }
            int c = peek();
            if (c == 'i') {
                pos++;
                return integer('e');
            }
            if (c == 'l') {
                pos++;
                List<Object> list = new ArrayList<>();
                while (peek() != 'e') {
                    list.add(value(depth + 1));
                }
                pos++;
                return list;
            }
            if (c == 'd') {
                pos++;
                Map<String, Object> map = new LinkedHashMap<>();
                while (peek() != 'e') {
                    if (peek() < '0' || peek() > '9') {
                        throw new BencodeException("dictionary key is not a string at offset " + pos);
                    }
                    String key = string();
                    map.put(key, value(depth + 1));
                }
                pos++;
                return map;
            }
            if (c >= '0' && c <= '9') {
                return string();
            }
            throw new BencodeException("unexpected byte '" + (char) c + "' at offset " + pos);
        }

        private int peek() {
            if (pos >= data.length) {
                throw new BencodeException("unexpected end of data at offset " + pos);
            }
            return data[pos] & 0xff;
        }

        private String string() {
            long len = integer(':');
            if (len < 0 || len > data.length - pos) {
                throw new BencodeException("string length " + len + " exceeds data at offset " + pos);
            }
            String s = new String(data, pos, (int) len, StandardCharsets.UTF_8);
            pos += (int) len;
            return s;
        }

        /** Reads digits up to {@code end}; rejects leading zeros and "-0" as the spec requires. */
        private long integer(char end) {
            int start = pos;
            boolean negative = end == 'e' && peek() == '-';
            if (negative) {
                pos++;
            }
            int digitsStart = pos;
            while (peek() != end) {
                int c = peek();
                if (c < '0' || c > '9') {
                    throw new BencodeException("bad digit '" + (char) c + "' at offset " + pos);
                }
                pos++;
            }
            int digits = pos - digitsStart;
            pos++;
            if (digits == 0
                    || (data[digitsStart] == '0' && (digits > 1 || negative))) {
                throw new BencodeException("malformed number at offset " + start);
            }
            String text = new String(data, start, pos - 1 - start, StandardCharsets.US_ASCII);
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new BencodeException("number out of range at offset " + start);
            }
        }
    }
}
