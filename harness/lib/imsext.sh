# shellcheck shell=bash
# `--ims external` (issue #13): the gateway and rtpengine toward an IMS the lab does not run, e.g. a
# telecom lab's core. No local core and no SIPp UE is started; the gateway registers the users of a
# credentials file (IMPI, IMPU, SIP password or K/OPc per user) at the outside P-CSCF.
#   ./lab up --ims external --pcscf HOST:PORT|[IPV6]:PORT|NAME --domain D [--transport udp|tcp] [--dns ADDR[:PORT]]
#            [--ipv6] --credentials FILE
# --pcscf NAME: the gateway finds the P-CSCF as a UE does (RFC 3263: NAPTR → SRV → A, transport from NAPTR; the
# next SRV target when one stops answering), asking --dns (default: this host's resolvers; IPv4 or IPv6).
# --ipv6 (implied by an IPv6 --pcscf): IPv6 on Gm, as VoLTE cores often have it: AAAA records for a name, the
# gateway's SIP side and rtpengine's IMS interface on this host's IPv6 address toward the P-CSCF; the browsers'
# side (--bind) stays IPv4 and rtpengine translates (docs/connecting-your-ims.md "IPv6").
#   ./lab compliance --ims external ... [--call-to USER]
# The credentials file's first user is the browser's; its second, when a SIPp UE can play it (aka, or digest with
# IMPI and SIP password), is the far end of the compliance run's calls: the lab's SIPp UEs register it at the same
# P-CSCF (sipp-scenarios/run-ue.sh UE_CREDENTIALS/UE_LOGIN) and answer, call, ring with preconditions, send DTMF...
# --call-to USER: without a second user, the MO call goes to USER@D (someone who answers in the outside IMS).
# docs/connecting-your-ims.md, docs/ims-sim.md "External IMS".

ext_mode() { [[ ${LAB_IMS:-} == external ]]; }

# ext_option OPT [VALUE] — one external-mode option of up/compliance: sets LAB_EXT_* and EXT_TAKEN (how
# many arguments it took; 0: not an external-mode option). usage_error on a missing value.
ext_option() {
  local opt=$1 val=${2-}
  EXT_TAKEN=2
  if [[ $opt == --ipv6 ]]; then LAB_EXT_IPV6=1; EXT_TAKEN=1; return 0; fi
  if [[ $opt == --*=* ]]; then val=${opt#*=}; opt=${opt%%=*}; EXT_TAKEN=1; fi
  case $opt in
    --pcscf | --domain | --transport | --credentials | --call-to | --dns) ;;
    *) EXT_TAKEN=0; return 0 ;;
  esac
  [[ -n $val && $val != --* ]] || usage_error "$opt needs a value"
  case $opt in
    --pcscf) LAB_EXT_PCSCF=$val ;;
    --domain) LAB_EXT_DOMAIN=$val ;;
    --transport) LAB_EXT_TRANSPORT=$val ;;
    --credentials) LAB_EXT_CREDENTIALS=$val ;;
    --call-to) LAB_EXT_CALL_TO=$val ;;
    --dns) LAB_EXT_DNS=$val ;;
  esac
}

# ext_check — the external-mode options are complete and sane and the credentials file is private (no
# group/other permissions); ext_check_file then parses it (harness/kit/ims-credentials.mjs, the gateway's grammar).
# Exits with a usage error otherwise. Exports LAB_EXT_* for the namespace re-exec and the tests.
ext_check() {
  local host port mode out
  if ! ext_mode; then
    [[ -z ${LAB_EXT_PCSCF:-}${LAB_EXT_DOMAIN:-}${LAB_EXT_TRANSPORT:-}${LAB_EXT_CREDENTIALS:-}${LAB_EXT_CALL_TO:-}${LAB_EXT_DNS:-}${LAB_EXT_IPV6:-} ]] ||
      usage_error "--pcscf, --domain, --transport, --dns, --ipv6, --credentials and --call-to go with --ims external"
    return 0
  fi
  [[ -n ${LAB_EXT_PCSCF:-} ]] || usage_error "--ims external needs --pcscf HOST:PORT or NAME (the outside IMS's P-CSCF, NAME found by DNS)"
  [[ -n ${LAB_EXT_DOMAIN:-} ]] || usage_error "--ims external needs --domain D (the home network domain, e.g. ims.example.net)"
  [[ -n ${LAB_EXT_CREDENTIALS:-} ]] || usage_error "--ims external needs --credentials FILE (IMPI, IMPU, password or K/OPc per user)"
  LAB_EXT_TRANSPORT=${LAB_EXT_TRANSPORT:-udp}
  [[ $LAB_EXT_TRANSPORT == udp || $LAB_EXT_TRANSPORT == tcp ]] || usage_error "--transport takes udp or tcp, not '$LAB_EXT_TRANSPORT'"
  if [[ $LAB_EXT_PCSCF == \[* ]]; then
    # an IPv6 address: [ADDR]:PORT (RFC 3986 brackets; a bare IPv6 address and a port cannot be told apart)
    [[ $LAB_EXT_PCSCF =~ ^\[([0-9A-Fa-f:.]+)\]:([0-9]{1,5})$ ]] && ext_ipv6_literal "${BASH_REMATCH[1]}" &&
      ((BASH_REMATCH[2] > 0 && BASH_REMATCH[2] < 65536)) ||
      usage_error "--pcscf wants an IPv6 address as [ADDR]:PORT (e.g. [2001:db8::5]:5060), not '$LAB_EXT_PCSCF'"
    LAB_EXT_IPV6=1
  elif [[ $LAB_EXT_PCSCF == *:*:* ]]; then
    usage_error "--pcscf: write an IPv6 address in brackets with its port, [ADDR]:PORT (e.g. [2001:db8::5]:5060), not '$LAB_EXT_PCSCF'"
  elif [[ $LAB_EXT_PCSCF == *:* ]]; then
    host=${LAB_EXT_PCSCF%:*} port=${LAB_EXT_PCSCF##*:}
    [[ -n $host && $port =~ ^[0-9]{1,5}$ ]] && ((port > 0 && port < 65536)) ||
      usage_error "--pcscf wants HOST:PORT (e.g. 10.0.0.5:5060) or a name to find by DNS (e.g. pcscf.ims.example.net), not '$LAB_EXT_PCSCF'"
    [[ $host =~ ^[A-Za-z0-9.-]+$ ]] || usage_error "--pcscf: '$host' is not an IPv4 address or host name"
    [[ ${LAB_EXT_IPV6:-} != 1 || ! $host =~ ^[0-9.]+$ ]] ||
      usage_error "--ipv6 and the IPv4 P-CSCF $LAB_EXT_PCSCF do not go together: give its IPv6 address ([ADDR]:PORT) or its name"
  else
    # a name alone: RFC 3263 discovery (NAPTR → SRV → A) by the gateway
    [[ $LAB_EXT_PCSCF =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ && ! $LAB_EXT_PCSCF =~ ^[0-9.]+$ ]] ||
      usage_error "--pcscf wants HOST:PORT (e.g. 10.0.0.5:5060) or a name to find by DNS (e.g. pcscf.ims.example.net), not '$LAB_EXT_PCSCF'"
  fi
  if [[ -n ${LAB_EXT_DNS:-} ]]; then
    if [[ $LAB_EXT_DNS =~ ^\[([0-9A-Fa-f:.]+)\](:([0-9]{1,5}))?$ ]]; then # [IPV6] or [IPV6]:PORT
      host=${BASH_REMATCH[1]} port=${BASH_REMATCH[3]:-53}
      ext_ipv6_literal "$host" || host=bad
    elif [[ $LAB_EXT_DNS == *:*:* ]]; then # a bare IPv6 address: port 53
      host=$LAB_EXT_DNS port=53
      ext_ipv6_literal "$host" || host=bad
    else
      host=${LAB_EXT_DNS%:*} port=${LAB_EXT_DNS##*:}
      [[ $LAB_EXT_DNS == *:* ]] || port=53
      [[ $host =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || host=bad
    fi
    [[ $host != bad && $port =~ ^[0-9]{1,5}$ ]] && ((port > 0 && port < 65536)) ||
      usage_error "--dns wants the DNS server's ADDR or ADDR:PORT (e.g. 10.0.0.53, 10.0.0.53:5353, 2001:db8::53 or [2001:db8::53]:5353), not '$LAB_EXT_DNS'"
  fi
  [[ $LAB_EXT_DOMAIN =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] || usage_error "--domain: '$LAB_EXT_DOMAIN' is not a domain name"
  [[ -z ${LAB_EXT_CALL_TO:-} || $LAB_EXT_CALL_TO =~ ^[A-Za-z0-9._+-]+$ ]] || usage_error "--call-to wants a user name of the outside IMS, not '$LAB_EXT_CALL_TO'"
  [[ -f $LAB_EXT_CREDENTIALS && -r $LAB_EXT_CREDENTIALS ]] || usage_error "--credentials: no readable file '$LAB_EXT_CREDENTIALS'"
  LAB_EXT_CREDENTIALS=$(realpath "$LAB_EXT_CREDENTIALS")
  mode=$(stat -c %a "$LAB_EXT_CREDENTIALS")
  ((8#$mode & 8#077)) && usage_error "--credentials: $LAB_EXT_CREDENTIALS holds secrets and is readable by others (mode $mode); run: chmod 600 $LAB_EXT_CREDENTIALS"
  LAB_EXT_IPV6=${LAB_EXT_IPV6:-0}
  export LAB_EXT_PCSCF LAB_EXT_DOMAIN LAB_EXT_TRANSPORT LAB_EXT_CREDENTIALS LAB_EXT_CALL_TO LAB_EXT_DNS LAB_EXT_IPV6
}

# ext_ipv6_literal ADDR — ADDR (no brackets) is an IPv6 address.
ext_ipv6_literal() { [[ $1 == *:* ]] && python3 -c 'import ipaddress, sys; ipaddress.IPv6Address(sys.argv[1])' "$1" 2>/dev/null; }

# ext_check_file — after ensure_packages (it needs node): every line of the credentials file parses. Sets
# LAB_EXT_PEER/LAB_EXT_PEER_USER/LAB_EXT_PEER_KIND (the second user, played by the lab's SIPp UEs: its login, IMPU
# user part, aka|digest; empty when there is none, LAB_EXT_NO_PEER says why) and LAB_EXT_MO_TO (whom the MO call
# goes to: the second user, else --call-to).
ext_check_file() {
  local out peer
  ext_mode || return 0
  out=$(node "$ROOT/harness/kit/ims-credentials.mjs" check "$LAB_EXT_CREDENTIALS" 2>&1) ||
    usage_error "--credentials: bad file:"$'\n'"$out"
  log "external IMS: P-CSCF $LAB_EXT_PCSCF ($LAB_EXT_TRANSPORT${LAB_EXT_DNS:+, DNS $LAB_EXT_DNS}), domain $LAB_EXT_DOMAIN, credentials $LAB_EXT_CREDENTIALS: $out"
  LAB_EXT_PEER='' LAB_EXT_PEER_USER='' LAB_EXT_PEER_KIND='' LAB_EXT_NO_PEER=''
  if peer=$(node "$ROOT/harness/kit/ims-credentials.mjs" peer "$LAB_EXT_CREDENTIALS" 2>&1); then
    read -r LAB_EXT_PEER LAB_EXT_PEER_USER LAB_EXT_PEER_KIND <<<"$peer"
    log "external IMS: the second user $LAB_EXT_PEER ($LAB_EXT_PEER_USER, $LAB_EXT_PEER_KIND) is the far end: the lab's SIPp UEs register it at the P-CSCF"
  else
    LAB_EXT_NO_PEER=$peer
    log "external IMS: no far-end UE of the lab's ($peer): the checks that need one are not applicable"
  fi
  LAB_EXT_MO_TO=${LAB_EXT_PEER_USER:-${LAB_EXT_CALL_TO:-}}
  # the digest registration check: the first digest user with IMPI, IMPU and SIP password (none: not applicable)
  LAB_EXT_DIGEST_USER=$(node "$ROOT/harness/kit/ims-credentials.mjs" digest "$LAB_EXT_CREDENTIALS" 2>/dev/null) || LAB_EXT_DIGEST_USER=''
  export LAB_EXT_PEER LAB_EXT_PEER_USER LAB_EXT_PEER_KIND LAB_EXT_NO_PEER LAB_EXT_MO_TO LAB_EXT_DIGEST_USER
}

# ext_configure — before lab_start_all in external mode: the gateway's proxy, domain and transport are
# the outside IMS's, and only rtpengine's and the gateway's ports must be free (the IMS's ports may be
# in use on this host: it is the outside core's business). The gateway's SIP side and rtpengine's
# IMS-facing interface take the source address this host uses toward the P-CSCF (ip route get), so the
# outside core can reach them; a P-CSCF off this host then needs a non-loopback --bind for the browsers.
ext_configure() {
  ext_mode || return 0
  local host=${LAB_EXT_PCSCF%:*} ip src first family=-4 fam=IPv4 v6=''
  [[ $LAB_EXT_IPV6 == 1 ]] && family=-6 fam=IPv6 v6=' over IPv6 (AAAA records)'
  if [[ $host =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ || $host == \[* ]]; then
    ip=${host#[} ip=${ip%]} first=$LAB_EXT_PCSCF
  else
    # a name: the gateway's own resolver (RFC 3263, --dns; AAAA with --ipv6) says where its first target is
    first=$(ext_lookup_pcscf) || die "--pcscf: no P-CSCF found for '$LAB_EXT_PCSCF'$v6: $first"
    ip=${first%:*} ip=${ip#[} ip=${ip%]}
  fi
  src=$(ip "$family" route get "$ip" 2>/dev/null | sed -nE 's/.* src ([0-9A-Fa-f.:]+).*/\1/p' | head -n 1)
  [[ -n $src ]] || die "--pcscf: no $fam route from this host to $ip"
  if [[ $src != 127.* && $src != ::1 ]]; then
    [[ $LAB_BIND != 127.* && $LAB_BIND != 0.0.0.0 ]] ||
      die "the P-CSCF $ip is reached from $src: give --bind ADDR too (the browsers' side of rtpengine and the gateway, $([[ -n $v6 ]] && echo "an IPv4 address of this host" || echo "e.g. --bind $src"))"
    LAB_RTPENGINE_IFACES[1]="ims/$src"
  fi
  LAB_SIP_HOST=$src
  LAB_PCSCF=$first # an address (the lab's SIPp UEs need one); the gateway itself is given --pcscf as it is
  LAB_EXT_PCSCF_ADDR=$first # the tests' capture filter and the SIPp UEs' P-CSCF
  export LAB_EXT_PCSCF_ADDR
  LAB_IMS_DOMAIN=$LAB_EXT_DOMAIN
  LAB_IMS_TRANSPORT=$LAB_EXT_TRANSPORT
  LAB_PORTS=("${LAB_RTPENGINE_NG##*:}/udp" "${LAB_RTPENGINE_DTMF_LOG##*:}/udp" "$LAB_GW_PORT/tcp" "$LAB_GW_SIP_PORT/udp" "$LAB_GW_SIP_PORT/tcp")
  export LAB_IMS_TRANSPORT LAB_SIP_HOST
  log "external IMS: the gateway's SIP side is $(ext_host_port "$LAB_SIP_HOST" "$LAB_GW_SIP_PORT")${v6:+ (IPv6 on Gm; the browsers stay on IPv4)}; no IMS core and no SIPp UE are started here"
}

# ext_lookup_pcscf — the first P-CSCF target of --pcscf (a name) as ADDR:PORT, found by the gateway's own
# resolver (sip/PcscfLookup: RFC 3263, --dns or this host's resolvers); the reason on stdout and status 1 when none.
ext_lookup_pcscf() {
  local out host port
  build_gateway >/dev/null || { echo "the gateway did not build"; return 1; }
  out=$(java -cp "$GATEWAY_JAR" -Dloader.main=org.webrtcims.gw.sip.PcscfLookup org.springframework.boot.loader.launch.PropertiesLauncher \
    "$LAB_EXT_PCSCF" "$LAB_EXT_TRANSPORT" "${LAB_EXT_DNS:-}" "$([[ $LAB_EXT_IPV6 == 1 ]] && echo ipv6 || echo ipv4)" 2>&1) ||
    { echo "${out##*$'\n'}"; return 1; }
  log "external IMS: $LAB_EXT_PCSCF found by DNS (in the order the gateway tries them):"$'\n'"$out" >&2
  read -r host port _ <<<"$out"
  ext_host_port "$host" "$port"
}

# ext_host_port ADDR PORT — ADDR:PORT, an IPv6 ADDR in brackets.
ext_host_port() { if [[ $1 == *:* ]]; then echo "[$1]:$2"; else echo "$1:$2"; fi; }

# compliance_external — `./lab compliance --ims external ...` (after ext_check): on this host's network,
# not in a private namespace (the outside P-CSCF must be reachable), without the browser topology: the
# browser runs on this host too. Runs the checks whose cores include external (checks.mjs).
compliance_external() {
  local rc started
  ensure_packages
  ext_check_file
  build_gateway && build_harness && need_script harness/compliance/run.mjs || return 1
  lab_prepare_run compliance
  ext_configure
  lab_tls_prepare || return 1 # --bind beyond loopback: https:// (the tests' Node trusts the certificate)
  [[ ${LAB_TLS:-0} == 1 ]] && export NODE_EXTRA_CA_CERTS=$LAB_TLS_CERT
  procs_install_traps
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  log "external IMS: on this host's network (the outside P-CSCF must be reachable, so no private namespace)"
  export LAB_GW_MIN_SE=2 # the session-timer check's 4 s intervals (harness/lib/components.sh)
  lab_start_all || return 1
  run_compliance_tests
  procs_cleanup
  node "$ROOT/harness/compliance/run.mjs" report "$LAB_RUN_DIR/test-results.jsonl" "$LAB_RUN_DIR" "$started" external
  rc=$?
  ((rc == 2)) && die "no compliance report was written"
  log "report: $(rel "$LAB_RUN_DIR")/report.html, report.json and junit.xml; logs: $(rel "$LAB_LOGDIR")/"
  echo "lab compliance: $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary)' "$LAB_RUN_DIR/report.json")"
  return "$rc"
}

# ext_print_access SHOWN_ADDR — `./lab up --ims external`: where the page is and who can log in.
ext_print_access() {
  local logins
  logins=$(awk '{sub(/#.*/, "")} NF >= 3 {printf "%s%s (%s)", sep, $1, $3; sep=", "}' "$LAB_EXT_CREDENTIALS")
  log "the lab is up toward the external IMS at $LAB_EXT_PCSCF ($LAB_EXT_TRANSPORT, domain $LAB_EXT_DOMAIN). Web client: $(up_web_url "$1")"
  log "log in with a web password of $LAB_EXT_CREDENTIALS: $logins"
  log "each login registers its IMPU at the P-CSCF; gateway log: $(rel "$LAB_LOGDIR")/gateway.log"
  log "stop it with: ./lab down"
}

# ext_test_pass — the external pass of `./lab test` (the full run, or --only ims-external): external mode tested the
# way users use it, harness/tests/ims-external.sh (the lab's 3GPP core as an outsider in a namespace of its own over
# a veth, then `./lab compliance --ims external --pcscf pcscf.<domain> ...` toward it over IPv4, and again with --ipv6
# over an IPv6-only link to the same core), in a clean environment of its own (a fresh namespace: nothing of this
# run's topology). Sets LAB_T_INTEG_EXT.
ext_test_pass() {
  log "the external pass: harness/tests/ims-external.sh (the 3GPP core as an outsider over a veth, ./lab compliance --ims external toward it over IPv4, then IPv6); logs: out/ims-external/"
  run_foreground ims-external 1200 env -i PATH="$PATH" HOME="${HOME:-/root}" bash "$ROOT/harness/tests/ims-external.sh"
  ext_test_verdict
}

# ext_test_pass_start — the external pass in the background (the full ./lab test starts it with the second browser's
# pass, and the 3GPP pass follows that): it shares nothing with them (its own network and mount namespaces, its own
# core, out/ims-external/ and out/compliance/), so it adds no time of its own. Its output goes to its log;
# ext_test_pass_finish prints it.
ext_test_pass_start() {
  local logf="$LAB_LOGDIR/ims-external.log"
  log "the external pass, in the background: harness/tests/ims-external.sh (the 3GPP core as an outsider over a veth, ./lab compliance --ims external toward it over IPv4, then IPv6); its output follows when it ends; logs: out/ims-external/"
  : >"$logf"
  proc_spawn ims-external "$logf" timeout --kill-after=10 1200 env -i PATH="$PATH" HOME="${HOME:-/root}" bash "$ROOT/harness/tests/ims-external.sh"
  LAB_EXT_PID=$LAB_LAST_PID
  [[ -n ${LAB_RUN_DIR:-} ]] && echo "ims-external $LAB_EXT_PID" >>"$LAB_RUN_DIR/runners" # for lab_reap_leftovers
}

# ext_test_pass_finish — wait for the external pass ext_test_pass_start started, print its output, set LAB_T_INTEG_EXT.
ext_test_pass_finish() {
  local rc
  wait "$LAB_EXT_PID"
  rc=$?
  log "the external pass's output (it ran in the background; log: $(rel "$LAB_LOGDIR")/ims-external.log):"
  cat "$LAB_LOGDIR/ims-external.log"
  ((rc == 124)) && fail "ims-external did not finish within 1200s"
  ext_test_verdict
}

# ext_test_verdict — LAB_T_INTEG_EXT from the external pass's log.
ext_test_verdict() {
  local line
  line=$(grep -E '^ims-external: IPv[46] ' "$LAB_LOGDIR/ims-external.log" | tail -n 1)
  if grep -q '^ims-external: all passed' "$LAB_LOGDIR/ims-external.log"; then
    LAB_T_INTEG_EXT="external ok (${line#ims-external: })"
  else
    LAB_T_INTEG_EXT="external FAILED (${line:+${line#ims-external: }; }see $(rel "$LAB_LOGDIR")/ims-external.log)"
  fi
}
