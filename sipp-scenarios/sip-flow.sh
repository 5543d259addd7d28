#!/usr/bin/env bash
# Usage: sip-flow.sh <sipp -message_file> [call-id]
# Prints the SIP flow a SIPp UE saw, one "sent|recv <METHOD or status>" per message, in order,
# e.g. "sent INVITE", "recv 183", so tests can assert the ladder. Retransmissions show up twice.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: sip-flow.sh <messages.log> [call-id]" >&2; exit 2; }
[ -r "$1" ] || { echo "sip-flow: cannot read '$1'" >&2; exit 2; }
awk -v cid="${2:-}" '
  function flush() { if (dir != "" && (cid == "" || id == cid)) print dir, what; dir = "" }
  /message sent/     { flush(); dir = "sent"; first = 1; id = ""; next }
  /message received/ { flush(); dir = "recv"; first = 1; id = ""; next }
  dir != "" && first && NF > 0 {
    sub(/\r$/, ""); what = ($1 == "SIP/2.0") ? $2 : $1; first = 0; next }
  dir != "" && tolower($1) ~ /^(call-id|i):$/ { id = $2; sub(/\r$/, "", id) }
  END { flush() }
' "$1"
