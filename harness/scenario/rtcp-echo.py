#!/usr/bin/env python3
"""rtcp-echo.py PORT... — send every UDP datagram that arrives on 127.0.0.1:PORT back to its sender.

The lab's SIPp UEs echo RTP (-rtp_echo: the media port and media port + 2) but not RTCP (media port + 1),
so a browser calling them gets no RTCP at all and its congestion control no feedback. With this on the
UE's RTCP ports the browser gets its own RTCP back, and because the UE echoes its RTP unchanged (same
SSRC), its receiver reports about the echoed stream are reports about what it sends: loss and delay of
the round trip (./lab scenario variable-capacity, docs/scenarios.md). Prints the count when stopped.
"""
import selectors
import signal
import socket
import sys

def main():
    ports = [int(p) for p in sys.argv[1:]]
    if not ports:
        sys.exit("usage: rtcp-echo.py PORT...")
    sel = selectors.DefaultSelector()
    for p in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", p))
        sel.register(s, selectors.EVENT_READ)
    count = 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print(f"rtcp-echo: listening on {', '.join(map(str, ports))}", flush=True)
    while not stop:
        for key, _ in sel.select(timeout=0.5):
            data, addr = key.fileobj.recvfrom(65535)
            key.fileobj.sendto(data, addr)
            count += 1
    print(f"rtcp-echo: echoed {count} datagrams", flush=True)

if __name__ == "__main__":
    main()
