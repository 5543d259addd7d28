#!/usr/bin/env python3
"""The browser's "executable" when the lab runs its topology (docs/media.md "Topology").

The driver (Playwright for Chromium, puppeteer-core for Firefox) starts this instead of the browser;
it runs the real binary inside the browser's network namespace (`ip netns exec`), while the Node
runner stays in the lab's core namespace:
- Chromium (Playwright, --remote-debugging-pipe): plain exec; the driver's pipes (stdio, fds 3/4)
  pass through untouched.
- Firefox (WebDriver BiDi over a WebSocket that Firefox opens on 127.0.0.1 of *its* namespace, and
  announces on stderr as "WebDriver BiDi listening on ws://127.0.0.1:PORT"): this process stays,
  listens on 127.0.0.1:PORT of the core namespace, and forwards each connection to 127.0.0.1:PORT in
  the browser namespace (a socket made by a thread that entered that namespace with setns(2)). The
  announced URL is thus valid for the driver as it is.
Environment (set by harness/runner/browser.mjs): LAB_NETNS_EXEC_NS, LAB_NETNS_EXEC_BIN and, for
Firefox, LAB_NETNS_EXEC_FORWARD_BIDI=1.
"""
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading

CLONE_NEWNET = 0x40000000


def die(msg):
    sys.stderr.write(f"netns-exec: {msg}\n")
    sys.exit(2)


ns = os.environ.get("LAB_NETNS_EXEC_NS") or die("LAB_NETNS_EXEC_NS is not set (the browser namespace)")
binary = os.environ.get("LAB_NETNS_EXEC_BIN") or die("LAB_NETNS_EXEC_BIN is not set (the browser binary)")
cmd = ["ip", "netns", "exec", ns, binary, *sys.argv[1:]]
if os.environ.get("LAB_NETNS_EXEC_FORWARD_BIDI") != "1":
    os.execvp(cmd[0], cmd)

libc = ctypes.CDLL(None, use_errno=True)


def connect_in_ns(port):
    """A TCP connection to 127.0.0.1:port of the browser namespace (made on a thread inside it)."""
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:  # this thread only: the others stay in the core namespace
            raise OSError(ctypes.get_errno(), f"setns into {ns}")
    finally:
        os.close(fd)
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def pump(src, dst):
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, port):
    try:
        upstream = connect_in_ns(port)
    except OSError as e:
        sys.stderr.write(f"netns-exec: cannot reach the browser's 127.0.0.1:{port} in {ns}: {e}\n")
        client.close()
        return
    upstream.settimeout(None)
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
    pump(client, upstream)


def forward(port):
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(8)

    def accept_loop():
        while True:
            client, _ = lsock.accept()
            # a fresh thread per connection: it enters the browser namespace for its upstream socket
            threading.Thread(target=serve, args=(client, port), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()


child = subprocess.Popen(cmd, stderr=subprocess.PIPE)
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda s, _f: child.send_signal(s))
announce = re.compile(rb"WebDriver BiDi listening on ws://(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)")
for line in child.stderr:
    m = announce.search(line)
    if m:
        try:
            forward(int(m.group(1)))
        except OSError as e:
            sys.stderr.write(f"netns-exec: cannot listen on 127.0.0.1:{m.group(1)} for the BiDi forward: {e}\n")
            child.kill()
    sys.stderr.buffer.write(line)
    sys.stderr.flush()
sys.exit(child.wait())
