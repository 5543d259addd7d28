#!/usr/bin/env python3
"""Wait until rtpengine answers an ng `ping` with `pong`.

Usage: ng-ping.py [host:port] [timeout_s]   (defaults DEFAULT_NG, 10)
Exit 0 on pong, 1 on timeout, 2 on bad usage. Scripts use it to wait for readiness.
"""
import os
import socket
import sys
import time

# The lab's rtpengine ng address, from the one table harness/addresses.env (harness/lib/lab_addresses.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness", "lib"))
from lab_addresses import LAB  # noqa: E402

DEFAULT_NG = LAB["LAB_RTPENGINE_NG"]


def main(argv):
    target = argv[1] if len(argv) > 1 else DEFAULT_NG
    try:
        host, port_s = target.rsplit(":", 1)
        port = int(port_s)
        timeout = float(argv[2]) if len(argv) > 2 else 10.0
    except ValueError:
        print("usage: ng-ping.py [host:port] [timeout_s]", file=sys.stderr)
        return 2

    cookie = "ping%d_%d" % (os.getpid(), int(time.time()))
    request = ("%s d7:command4:pinge" % cookie).encode()
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        # Retry every 0.2 s: before rtpengine binds, the datagram is simply lost
        # (or refused), so keep sending with the same cookie until the deadline.
        while time.monotonic() < deadline:
            try:
                sock.sendto(request, (host, port))
                sock.settimeout(min(0.2, max(0.01, deadline - time.monotonic())))
                data, _ = sock.recvfrom(65535)
            except (socket.timeout, ConnectionRefusedError):
                time.sleep(0.05)
                continue
            except OSError as exc:
                print("ng-ping: %s: %s" % (target, exc), file=sys.stderr)
                return 1
            text = data.decode("latin-1")
            if text.startswith(cookie + " ") and "6:result4:pong" in text:
                return 0
    print("ng-ping: no pong from %s within %gs" % (target, timeout), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
