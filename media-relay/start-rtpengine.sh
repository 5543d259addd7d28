#!/usr/bin/env bash
# Starts rtpengine in the foreground (exec), so the caller's $! is rtpengine's own PID.
# Userspace forwarding only (table=-1): there is no kernel module on the lab machines.
set -euo pipefail

RTPENGINE_BIN="${RTPENGINE_BIN:-rtpengine}"
# The ng control address (HOST:PORT) is the caller's: ./lab passes harness/lib/addresses.sh's.
RTPENGINE_NG="${RTPENGINE_NG:-}"
RTPENGINE_IFACE="${RTPENGINE_IFACE:-127.0.0.1}"
RTPENGINE_PORT_MIN="${RTPENGINE_PORT_MIN:-30000}"
RTPENGINE_PORT_MAX="${RTPENGINE_PORT_MAX:-30999}"
# One JSON datagram per RFC 4733 event rtpengine sees end (the gateway's DTMF log listener); empty = none.
RTPENGINE_DTMF_LOG="${RTPENGINE_DTMF_LOG:-}"

if [ -z "$RTPENGINE_NG" ]; then
  echo "start-rtpengine: set RTPENGINE_NG=HOST:PORT, the ng control address (./lab uses harness/lib/addresses.sh)" >&2
  exit 2
fi

if ! command -v "$RTPENGINE_BIN" >/dev/null 2>&1; then
  echo "start-rtpengine: '$RTPENGINE_BIN' not found (apt-get install rtpengine-daemon)" >&2
  exit 2
fi

# More rtpengine options for a measurement (e.g. "--num-threads=1"), split at spaces; empty = none.
RTPENGINE_EXTRA_ARGS="${RTPENGINE_EXTRA_ARGS:-}"
extra=()
[ -z "$RTPENGINE_EXTRA_ARGS" ] || read -r -a extra <<<"$RTPENGINE_EXTRA_ARGS"

dtmf_log=()
[ -z "$RTPENGINE_DTMF_LOG" ] || dtmf_log=(--dtmf-log-dest="$RTPENGINE_DTMF_LOG")

# Never --no-fallback: without the kernel module it would refuse to start.
exec "$RTPENGINE_BIN" --config-file=none --foreground --log-stderr --table=-1 \
  --interface="$RTPENGINE_IFACE" --listen-ng="$RTPENGINE_NG" \
  --port-min="$RTPENGINE_PORT_MIN" --port-max="$RTPENGINE_PORT_MAX" "${dtmf_log[@]}" "${extra[@]}" "$@"
