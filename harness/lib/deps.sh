# shellcheck shell=bash
# Installs the Debian packages the lab needs. Each entry is "package:command"; a package counts
# as present when dpkg has it installed, or when its command is on PATH (e.g. Node from NodeSource).

LAB_PACKAGES=(
  kamailio:kamailio kamailio-websocket-modules: kamailio-tls-modules: kamailio-outbound-modules:
  kamailio-python3-modules: python3-jwt: # the eP-CSCF's access-token check (ims-sim/wic_token.py)
  rtpengine-daemon:rtpengine sip-tester:sipp
  chromium:chromium chromium-driver:chromedriver firefox-esr:firefox-esr nftables:nft coturn:turnserver
  tshark:tshark tcpdump:tcpdump iproute2:ss util-linux:unshare procps:ps curl:curl python3:python3
  libsrtp2-dev: libssl-dev: libpcap-dev: nlohmann-json3-dev: libgtest-dev: cmake:cmake g++:g++
  libavcodec-extra59: libopus-dev: linux-perf: libnetfilter-queue-dev: libusrsctp-dev: python3-venv:
  maven:mvn openjdk-17-jdk-headless:javac nodejs:node npm:npm
  redis-server:redis-server haproxy:haproxy keepalived:keepalived # scale-out: the relays' addresses move (VRRP)
  baresip-core:baresip linphone-cli:linphonec
)

# Only for `./lab docker` (docker/README.md): the compose file under Debian's podman, its base image by mmdebstrap.
LAB_PACKAGES_CONTAINERS=(podman:podman podman-compose:podman-compose mmdebstrap:mmdebstrap uidmap:newuidmap
  fuse-overlayfs:fuse-overlayfs slirp4netns:slirp4netns)

pkg_present() { # package command
  [[ -n $2 ]] && command -v "$2" >/dev/null 2>&1 && return 0
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

# as_root CMD... — run CMD as root: directly, or through non-interactive sudo.
as_root() {
  if ((EUID == 0)); then "$@"; else sudo -n "$@"; fi
}

# ensure_packages [LIST] — install what is missing of the array named LIST (default LAB_PACKAGES).
ensure_packages() {
  local entry missing=()
  local -n want=${1:-LAB_PACKAGES}
  for entry in "${want[@]}"; do
    pkg_present "${entry%%:*}" "${entry#*:}" || missing+=("${entry%%:*}")
  done
  if ((${#missing[@]} == 0)); then
    log "packages: all ${#want[@]} needed packages are installed"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "missing packages (${missing[*]}) and no apt-get to install them: this lab needs Debian or Ubuntu"
  if ((EUID != 0)) && ! sudo -n true 2>/dev/null; then
    die "missing packages (${missing[*]}): run ./lab as root (or with password-less sudo) to install them"
  fi
  local alog="$ROOT/out/build/apt.log"
  mkdir -p "$(dirname "$alog")"
  log "installing: ${missing[*]} (log: $(rel "$alog"))"
  # tshark asks whether non-root users may capture; answer it up front so the install never blocks.
  echo 'wireshark-common wireshark-common/install-setcap boolean false' | as_root debconf-set-selections
  log "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update >"$alog" 2>&1 ||
    { show_tail "$alog"; die "apt-get update failed (log: $(rel "$alog"))"; }
  log "apt-get install -y ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=300 \
    "${missing[@]}" >>"$alog" 2>&1 ||
    { show_tail "$alog"; die "installing ${missing[*]} failed (log: $(rel "$alog"))"; }
  log "installed: ${missing[*]}"
}
