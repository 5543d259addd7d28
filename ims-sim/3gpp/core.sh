# shellcheck shell=bash
# core.sh — sourced helpers that start and stop the whole 3GPP core (DNS, DB, HSS, S-, I-,
# P-CSCF) in the background, for selftest.sh and for `./lab ... --ims 3gpp` later.
# The caller must already be in a private network namespace with loopback up, and in a private
# mount namespace if it wants ims3_resolv (Kamailio and cdp resolve through /etc/resolv.conf).
#   . ims-sim/3gpp/core.sh
#   ims3_resolv "$logdir" && ims3_up "$logdir" || { echo "$IMS3_ERROR"; ims3_down; }
#   ... ; ims3_down
# Logs: <logdir>/{dnsmasq,mariadb,hss,mf,scscf,icscf,pcscf}.log; state under <logdir>/run/.
IMS3_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$IMS3_HERE/env.sh"
IMS3_PIDS=()          # started daemons, in start order
declare -gA IMS3_PID  # name -> PID
IMS3_ERROR=

# ims3_resolv LOGDIR — bind-mount a resolv.conf that names our dnsmasq over /etc/resolv.conf
ims3_resolv() {
  mkdir -p "$1/run"
  printf 'nameserver %s\noptions attempts:2 timeout:1\n' "$IMS3_ADDR" > "$1/run/resolv.conf"
  mount --bind "$1/run/resolv.conf" /etc/resolv.conf
}

# ims3_private_tmp LOGDIR — a private tmpfs on /tmp (in our own mount namespace): Kamailio's cdp leaves a
# FIFO /tmp/cdp_send_<pid>_<n>_<time> per Diameter request process behind at every stop; they go with the
# namespace. Skipped (returns 1) when LOGDIR or this directory lie under /tmp (they would be hidden).
ims3_private_tmp() {
  local d
  for d in "$1" "$IMS3_HERE"; do
    case "$(cd "$d" && pwd -P)/" in /tmp/*) return 1 ;; esac
  done
  mount -t tmpfs -o mode=1777,size=64m ims3-tmp /tmp
}

# ims3_wait SECONDS COMMAND... — poll every 0.2 s until COMMAND succeeds
ims3_wait() {
  local t=$(($1 * 5)); shift
  while ((t-- > 0)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

# ims3_start NAME LOGDIR COMMAND... — COMMAND in the background, output to LOGDIR/NAME.log
ims3_start() {
  local name=$1 logdir=$2; shift 2
  "$@" >"$logdir/$name.log" 2>&1 &
  IMS3_PIDS+=($!)
  IMS3_PID[$name]=$!
}

ims3_dns_ready() { getent hosts "hss.$IMS3_DOMAIN" | grep -q "^$IMS3_ADDR "; }
ims3_db_ready() {
  mariadb --no-defaults -h "$IMS3_ADDR" -P "$IMS3_DB_PORT" -uicscf -picscf icscf -Nse 'SELECT s_cscf_uri FROM s_cscf' |
    grep -q scscf
}
ims3_hss_ready() { grep -q "hss: ready" "$1/hss.log"; }  # LOGDIR
ims3_sip_ready() {  # ROLE
  local port_var="IMS3_${1^^}_PORT"
  python3 "$IMS3_HERE/../../harness/lib/sip-options.py" "$IMS3_ADDR:${!port_var}" 0.5
}
ims3_peer_open() { grep -q "STATE_OPEN'.*'$2.$IMS3_DOMAIN'" "$1/hss.log"; }  # LOGDIR ROLE

ims3_start_dns() { ims3_start dnsmasq "$1" "$IMS3_HERE/start-dns.sh" "$1/run/dns"; }
ims3_start_db() { ims3_start mariadb "$1" "$IMS3_HERE/start-db.sh" "$1/run/db"; }
ims3_start_hss() { ims3_start hss "$1" "$IMS3_HERE/start-hss.sh" "$1/run/hss"; }
# the MF of the bootstrap data channel (dcsf/mf.py on aiortc, docs/datachannel.md "Bootstrap")
ims3_start_mf() { ims3_start mf "$1" "$IMS3_MF_PYTHON" "$IMS3_HERE/dcsf/mf.py" --listen "$IMS3_ADDR:$IMS3_MF_PORT" --media-addr "$IMS3_ADDR"; }
ims3_mf_ready() { grep -q "mf: ready" "$1/mf.log"; }  # LOGDIR
ims3_start_cscf() { ims3_start "$2" "$1" "$IMS3_HERE/start-cscf.sh" "$2" "$1/run/$2"; }  # LOGDIR ROLE

# ims3_up LOGDIR — everything, in order, each waited for; on failure IMS3_ERROR says which part
ims3_up() {
  local l=$1 role
  mkdir -p "$l/run"
  ims3_start_dns "$l"
  ims3_wait 5 ims3_dns_ready || { IMS3_ERROR="dnsmasq did not answer (see $l/dnsmasq.log)"; return 1; }
  ims3_start_db "$l"
  ims3_wait 60 ims3_db_ready || { IMS3_ERROR="MariaDB not ready (see $l/mariadb.log)"; return 1; }
  ims3_start_hss "$l"
  ims3_wait 15 ims3_hss_ready "$l" || { IMS3_ERROR="HSS not ready (see $l/hss.log)"; return 1; }
  # the MF needs the harness's venv (aiortc); without it the S-CSCF's DCSF route finds no MF and calls go on unchanged
  if [[ -x $IMS3_MF_PYTHON ]]; then
    ims3_start_mf "$l"
    ims3_wait 15 ims3_mf_ready "$l" || { IMS3_ERROR="MF not ready (see $l/mf.log)"; return 1; }
  else
    echo "ims3: the MF (bootstrap data channel) is not started: $IMS3_MF_PYTHON is missing (./lab builds it: build_pyenv)" >&2
  fi
  for role in scscf icscf pcscf; do ims3_start_cscf "$l" "$role"; done
  for role in scscf icscf pcscf; do
    ims3_wait 15 ims3_sip_ready "$role" || { IMS3_ERROR="$role does not answer SIP (see $l/$role.log)"; return 1; }
  done
  for role in icscf scscf; do
    ims3_wait 45 ims3_peer_open "$l" "$role" || { IMS3_ERROR="no Diameter connection $role <-> HSS (see $l/hss.log)"; return 1; }
  done
}

# ims3_down — stop what ims3_up started, newest first, by PID
ims3_down() {
  local i
  for ((i = ${#IMS3_PIDS[@]} - 1; i >= 0; i--)); do kill "${IMS3_PIDS[i]}" 2>/dev/null; done
  for ((i = ${#IMS3_PIDS[@]} - 1; i >= 0; i--)); do wait "${IMS3_PIDS[i]}" 2>/dev/null; done
  IMS3_PIDS=()
}
