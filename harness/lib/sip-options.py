#!/usr/bin/env python3
"""sip-options.py [host:port|[ipv6]:port] [timeout_s] - exit 0 when a SIP server answers an OPTIONS over UDP.

Any SIP response (200, 404, ...) proves the server is up and processing requests; ./lab uses
this as Kamailio's readiness check.
"""
import socket
import sys
import uuid

from lab_addresses import LAB  # the one address table, harness/addresses.env (this file's directory is on sys.path)


def main() -> int:
    target = sys.argv[1] if len(sys.argv) > 1 else LAB["LAB_PCSCF"]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    host, port = target.rsplit(":", 1)
    v6 = host.startswith("[") and host.endswith("]")  # [IPv6]:port (RFC 3261 §25.1)
    addr = host[1:-1] if v6 else host
    with socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.connect((addr, int(port)))
        lhost, lport = sock.getsockname()[:2]
        if v6:
            lhost = f"[{lhost}]"
        tag = uuid.uuid4().hex
        request = (
            f"OPTIONS sip:{host}:{port} SIP/2.0\r\n"
            f"Via: SIP/2.0/UDP {lhost}:{lport};branch=z9hG4bK{tag[:16]};rport\r\n"
            "Max-Forwards: 70\r\n"
            f"From: <sip:lab-probe@{lhost}>;tag={tag[16:24]}\r\n"
            f"To: <sip:{host}:{port}>\r\n"
            f"Call-ID: {tag}@lab-probe\r\n"
            "CSeq: 1 OPTIONS\r\n"
            f"Contact: <sip:lab-probe@{lhost}:{lport}>\r\n"
            "Accept: application/sdp\r\n"
            "Content-Length: 0\r\n\r\n"
        )
        sock.send(request.encode())
        reply = sock.recv(65535)
    if not reply.startswith(b"SIP/2.0 "):
        return 1
    print(reply.split(b"\r\n", 1)[0].decode(errors="replace"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as exc:  # timeout, ICMP refused, bad target
        print(f"sip-options: {exc}", file=sys.stderr)
        sys.exit(1)
