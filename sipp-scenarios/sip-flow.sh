#!/usr/bin/env bash
# Usage: sip-flow.sh <sipp -message_file> [call-id]
# Prints the SIP flow a SIPp UE saw, one "sent|recv <METHOD or status>" per message, in order,
# e.g. "sent INVITE", "recv 183", so tests can assert the ladder. Retransmissions (same
# direction, start line, CSeq and top Via branch as an earlier message) are left out.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: sip-flow.sh <messages.log> [call-id]" >&2; exit 2; }
[ -r "$1" ] || { echo "sip-flow: cannot read '$1'" >&2; exit 2; }
awk -v cid="${2:-}" '
  function flush(  key) {
    if (dir == "" || (cid != "" && id != cid)) { dir = ""; return }
    key = dir "|" start "|" cseq "|" branch
    if (!(key in seen)) { seen[key] = 1; print dir, what }
    dir = ""
  }
  function begin(d) { flush(); dir = d; first = 1; id = ""; cseq = ""; branch = ""; start = "" }
  /message sent/     { begin("sent"); next }
  /message received/ { begin("recv"); next }
  dir == "" { next }
  { sub(/\r$/, "") }
  first && NF > 0 { start = $0; what = ($1 == "SIP/2.0") ? $2 : $1; first = 0; next }
  tolower($1) ~ /^(call-id|i):$/ { id = $2 }
  tolower($1) == "cseq:" { cseq = $2 " " $3 }
  tolower($1) ~ /^(via|v):$/ && branch == "" { if (match($0, /branch=[^;, ]+/)) branch = substr($0, RSTART, RLENGTH) }
  END { flush() }
' "$1"
