#!/usr/bin/env python3
"""Send DTMF digits as RFC 4733 telephone-events from a SIPp UE's media port.

Usage: send-rfc4733.py [--log FILE] FROM_IP:FROM_PORT TO_IP:TO_PORT PT CLOCK DIGITS [duration_ms] [gap_ms] [delay_ms]
(--log: append the outcome line to FILE instead of stdout/stderr; SIPp's exec has no redirection.)

Why not SIPp's own players: play_pcap_audio replays the payload type recorded in the pcap (101 in
/usr/share/sip-tester/dtmf_2833_*.pcap) and play_dtmf always uses 96, but the UE must send the payload
type it answered with, which is the one the offer gave telephone-event/8000 (RFC 3264 6.1); rtpengine
10.5 drops a telephone-event answered under another number. Like SIPp's players this sends from a raw
socket, so the packets leave from the UE's media port although SIPp's RTP echo has that port bound.

Per event (RFC 4733 2.5): a packet every 20 ms, marker on the first, one RTP timestamp for the whole
event, duration growing in units of CLOCK (the telephone-event rate: 8000, or 48000 beside Opus), then
the end packet three times (2.5.1.4). IPv4 or IPv6 (the addresses say which). Needs root.
"""
import random
import socket
import struct
import sys
import time

EVENTS = {**{str(d): d for d in range(10)}, "*": 10, "#": 11, "A": 12, "B": 13, "C": 14, "D": 15}
PACKET_MS = 20
VOLUME = 10  # -10 dBm0


def addr(text):
    host, port = text.rsplit(":", 1)  # IPv4:PORT, IPv6:PORT or [IPv6]:PORT
    return host.strip("[]"), int(port)


def main(argv):
    if len(argv) > 2 and argv[1] == "--log":
        sys.stdout = sys.stderr = open(argv[2], "a", buffering=1)
        argv = argv[:1] + argv[3:]
    if len(argv) < 6:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src, dst, pt, clock, digits = addr(argv[1]), addr(argv[2]), int(argv[3]), int(argv[4]), argv[5]
    duration_ms = int(argv[6]) if len(argv) > 6 else 200
    gap_ms = int(argv[7]) if len(argv) > 7 else 150
    delay_ms = int(argv[8]) if len(argv) > 8 else 0
    if any(d not in EVENTS for d in digits) or not 96 <= pt <= 127:
        print("send-rfc4733: digits must be 0-9*#A-D and pt 96..127", file=sys.stderr)
        return 2
    v6 = ":" in src[0]
    sock = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    if v6:
        # IPv6 forbids a zero UDP checksum (RFC 8200 8.1): the kernel fills it in at byte 6 of what we send (RFC 3542 3.1)
        sock.setsockopt(socket.IPPROTO_IPV6, getattr(socket, "IPV6_CHECKSUM", 7), 6)
    sock.bind((src[0], 0))
    ssrc, seq, ts = random.getrandbits(32), random.getrandbits(16), random.getrandbits(32)

    def send(marker, event, end, dur):
        nonlocal seq
        rtp = struct.pack("!BBHII", 0x80, (0x80 if marker else 0) | pt, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc)
        payload = rtp + struct.pack("!BBH", event, (0x80 if end else 0) | VOLUME, dur)
        udp = struct.pack("!HHHH", src[1], dst[1], 8 + len(payload), 0)  # checksum 0: none (IPv4), the kernel's (IPv6)
        sock.sendto(udp + payload, (dst[0], 0))
        seq += 1

    time.sleep(delay_ms / 1000)
    for i, digit in enumerate(digits):
        event, steps = EVENTS[digit], max(1, duration_ms // PACKET_MS)
        for n in range(steps):
            send(n == 0, event, False, n * PACKET_MS * clock // 1000)
            time.sleep(PACKET_MS / 1000)
        for _ in range(3):
            send(False, event, True, steps * PACKET_MS * clock // 1000)
        ts += (duration_ms + gap_ms) * clock // 1000
        if i + 1 < len(digits):
            time.sleep(gap_ms / 1000)
    print("send-rfc4733: sent %s (pt %d, %d Hz) from %s:%d to %s:%d" % (digits, pt, clock, src[0], src[1], dst[0], dst[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
