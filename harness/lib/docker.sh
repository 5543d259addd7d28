# shellcheck shell=bash
# ./lab docker (issue #28, docker/README.md): docker/compose.yaml — the scale-out hosts as containers — under
# Debian's podman and podman-compose, in ./lab's own private network namespace, and an MO and an MT call through
# the containers. The base image is built from Debian's packages (docker/base-image.sh: mmdebstrap) and imported
# into podman once (`podman image rm localhost/webrtc-ims-lab-base` builds it again).

LAB_DOCKER_IMAGE=localhost/webrtc-ims-lab-base
LAB_DOCKER_NET=lab-hosts
LAB_DOCKER_PROJECT=webrtc-ims-lab

# docker_base_image — the image from Debian's packages, unless podman has it already.
docker_base_image() {
  podman image exists "$LAB_DOCKER_IMAGE" && { log "docker: base image $LAB_DOCKER_IMAGE present"; return 0; }
  local tar="$ROOT/out/docker-base/base.tar" blog="$ROOT/out/docker-base/mmdebstrap.log"
  mkdir -p "$(dirname "$tar")"
  log "docker: building the base image from Debian's packages with mmdebstrap (a few minutes; log $(rel "$blog"))"
  bash "$ROOT/docker/base-image.sh" "$tar" >"$blog" 2>&1 || { show_tail "$blog"; fail "mmdebstrap failed (log: $(rel "$blog"))"; return 1; }
  podman import --quiet "$tar" "$LAB_DOCKER_IMAGE" >/dev/null || { fail "podman import of $(rel "$tar") failed"; return 1; }
  rm -f "$tar"
  log "docker: imported $LAB_DOCKER_IMAGE"
}

# docker_gateway_cds — the gateway containers' class-data sharing archive (harness/lib/build.sh build_gateway_cds, the
# same training start as on the machine), made in a container of the base image with the repo at /lab: an archive maps
# only into the JVM that made it and with the class path it was made with, so the machine's own (another java build,
# the checkout's path) is of no use there. It goes to signaling-gw/target/cds-container (gateway_cds_dir with
# LAB_IN_CONTAINER=1), where gateway_java in the gateway containers finds it; trained again only when the jar or the
# image's java changed. A failed training costs only the speed-up, and report.mjs then says the containers lack it.
docker_gateway_cds() {
  local logf="$LAB_LOGDIR/gateway-cds-container.log"
  log "docker: the gateway containers' class-data sharing archive (made in $LAB_DOCKER_IMAGE; log $(rel "$logf"))"
  podman run --rm --network none --cap-add NET_ADMIN --ulimit nofile=16384 --ulimit nproc=32768 -v "$ROOT:/lab" "$LAB_DOCKER_IMAGE" \
    bash -c 'ROOT=/lab LAB_IN_CONTAINER=1 && for f in log build; do source "$ROOT/harness/lib/$f.sh" || exit 1; done && build_gateway_cds' \
    >"$logf" 2>&1 || { show_tail "$logf"; fail "docker: the class-data sharing training in $LAB_DOCKER_IMAGE failed (log $(rel "$logf"))"; return 1; }
  sed 's/^/  /' "$logf"
}

docker_compose() { podman-compose -f "$ROOT/docker/compose.yaml" -p "$LAB_DOCKER_PROJECT" "$@"; }

# docker_down — the containers, their pod and the network; podman stops only what this project started
docker_down() {
  [[ ${LAB_DOCKER_UP:-} == 1 ]] || return 0
  LAB_DOCKER_UP=
  log "docker: podman-compose down"
  docker_compose down -t 10 >>"$LAB_LOGDIR/podman-compose.log" 2>&1
  podman network rm -f "$LAB_DOCKER_NET" >/dev/null 2>&1
  return 0
}

# docker_container_states — "name: status" of this project's containers; docker_exited — the names of those that
# exited (each container lives as long as its component: docker/host.sh)
docker_container_states() { podman ps -a --filter "label=io.podman.compose.project=$LAB_DOCKER_PROJECT" --format '{{.Names}}: {{.Status}}'; }
docker_exited() { podman ps -a --filter "label=io.podman.compose.project=$LAB_DOCKER_PROJECT" --filter status=exited --format '{{.Names}}'; }

cmd_docker() {
  (($# == 0)) || usage_error "docker takes no options (docker/README.md)"
  ((EUID == 0)) || die "./lab docker runs podman as root (its network on a bridge in a private namespace): run it as root"
  ensure_packages && ensure_packages LAB_PACKAGES_CONTAINERS
  build_harness && build_gateway || exit 1
  # LAB_MEDIA_RELAY_BUILD: loadgen from another build, as in ./lab bench (harness/lib/bench.sh bench_build)
  if [[ -n ${LAB_MEDIA_RELAY_BUILD:-} ]]; then
    [[ -x $LAB_MEDIA_RELAY_BUILD/loadgen/loadgen ]] || die "LAB_MEDIA_RELAY_BUILD=$LAB_MEDIA_RELAY_BUILD has no loadgen/loadgen"
  else
    build_media_relay || [[ -x $ROOT/media-relay/build/loadgen/loadgen ]] || exit 1
  fi
  docker_base_image || exit 1
  lab_prepare_run docker
  netns_run docker_in_netns
}

# docker_in_netns — the namespace phase of `./lab docker` (in-netns.sh): podman's network and the compose project, an
# MO and an MT call through the containers, the report.
docker_in_netns() {
  lab_use_run docker
  procs_install_traps
  trap 'docker_down; procs_cleanup' EXIT
  # crun refuses a hybrid cgroup layout (v1 controllers beside a cgroup2 mount that has controllers): this mount
  # namespace is ./lab's own, so the cgroup2 mount goes here only (podman uses the v1 hierarchies, cgroupfs)
  if mountpoint -q /sys/fs/cgroup/unified && [[ -n $(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null) || -d /sys/fs/cgroup/memory ]]; then
    umount /sys/fs/cgroup/unified || die "cannot unmount the cgroup2 mount in ./lab's mount namespace (crun needs one cgroup layout)"
  fi
  docker_gateway_cds || exit 1
  local entry="http://$LAB_HOSTS_HAPROXY_ADDR:$LAB_GW_PORT" plen=${LAB_HOSTS_NET#*/} end rc=0 users="$LAB_RUN_DIR/users.txt"
  # the network's gateway address is the client host's: this namespace is where browsers and loadgen sit
  # (podman gives each container an address of its own from --ip-range; host.sh adds the host's lab address)
  podman network create --disable-dns --subnet "$LAB_HOSTS_NET" --gateway "$LAB_HOSTS_CLIENT_ADDR" \
    --ip-range "${LAB_HOSTS_NET%.*}.192/26" "$LAB_DOCKER_NET" >/dev/null ||
    die "podman network create $LAB_DOCKER_NET failed"
  LAB_DOCKER_UP=1
  log "docker: podman-compose up (docker/compose.yaml: redis, relay1, relay2, ims, gw1, gw2, haproxy; log $(rel "$LAB_LOGDIR")/podman-compose.log)"
  docker_compose up -d >"$LAB_LOGDIR/podman-compose.log" 2>&1 || { show_tail "$LAB_LOGDIR/podman-compose.log"; die "podman-compose up failed"; }
  end=$((SECONDS + 300))
  until http_200 "$entry/api/v1/health"; do
    if [[ -n $(docker_exited) ]] || ((SECONDS > end)); then
      docker_container_states | while read -r n s; do n=${n%:}; podman logs --tail 8 "$n" 2>&1 | sed "s/^/  $n: /"; echo "  $n: $s"; done
      die "docker: the containers did not come up (HAProxy $entry/api/v1/health not 200)"
    fi
    sleep 2
  done
  log "docker: every container is up: $(docker_container_states | tr '\n' ' ')"
  ip -4 -o addr show | grep -q " $LAB_HOSTS_CLIENT_ADDR/$plen" || die "this namespace has not the client address $LAB_HOSTS_CLIENT_ADDR"

  # MO: alice (loadgen: ICE, DTLS-SRTP) through HAProxy -> a gateway container -> Kamailio -> ue1, 5 s of echoed media
  awk -F: '$1 == "alice" || $1 == "carol"' "$ROOT/ims-sim/users.txt" >"$users" && chmod 600 "$users"
  local lg="${LAB_MEDIA_RELAY_BUILD:-$ROOT/media-relay/build}/loadgen/loadgen" prof=(--profile A-SRTP --profiles "$ROOT/media-relay/bench/profiles.json")
  grep '^alice:' "$users" >"$LAB_RUN_DIR/mo-users.txt"
  grep '^carol:' "$users" >"$LAB_RUN_DIR/mt-users.txt"
  log "docker: MO call alice -> ue1 through $entry"
  "$lg" --local-ip "$LAB_HOSTS_CLIENT_ADDR" --gateway "$entry" --users "$LAB_RUN_DIR/mo-users.txt" --to ue1 --calls 1 --cps 1 \
    --duration 5 --json "$LAB_RUN_DIR/mo.json" --quiet "${prof[@]}" >"$LAB_LOGDIR/loadgen-mo.log" 2>&1 || rc=1
  # MT: carol logged in (loadgen --answer) through HAProxy; SIPp on the ims container calls her, 5 s of echoed media
  log "docker: MT call ue2 (on the ims container) -> carol through a gateway container"
  "$lg" --local-ip "$LAB_HOSTS_CLIENT_ADDR" --gateway "$entry" --users "$LAB_RUN_DIR/mt-users.txt" --answer --expect-calls 1 \
    --duration 5 --timeout 60 --json "$LAB_RUN_DIR/mt.json" "${prof[@]}" >"$LAB_LOGDIR/loadgen-mt.log" 2>&1 &
  local mtpid=$!
  end=$((SECONDS + 30))
  until grep -q 'answering incoming calls' "$LAB_LOGDIR/loadgen-mt.log" 2>/dev/null; do
    proc_alive "$mtpid" && ((SECONDS < end)) || { show_tail "$LAB_LOGDIR/loadgen-mt.log"; die "loadgen --answer (carol) did not log in"; }
    sleep 0.5
  done
  podman exec "${LAB_DOCKER_PROJECT}_ims_1" env UE_QUIET=1 UE_RTP_ECHO=1 LAB_LOGDIR=/run/lab/logs KAMAILIO="$LAB_HOSTS_IMS_ADDR:${LAB_PCSCF##*:}" \
    UE_IP="$LAB_HOSTS_IMS_ADDR" IMS_USERS=/lab/ims-sim/users.txt bash /lab/sipp-scenarios/run-ue.sh load-uac carol 1 1 7000 \
    >"$LAB_LOGDIR/sipp-mt.log" 2>&1 || rc=1
  wait "$mtpid" || rc=1
  # each gateway container's JVM command line (its pid from the container's /run/lab/pids) and the class-data sharing
  # archives mapped into it (/proc/PID/maps): report.mjs checks that the JIT options are ./lab's own
  # (harness/lib/build.sh gateway_jit, default: C1 only) and that the archive -XX:SharedArchiveFile names is mapped
  local i name
  for i in 1 2; do
    name=$(gateway_name "$i")
    podman exec "${LAB_DOCKER_PROJECT}_gw${i}_1" bash -c 'p=$(awk -v n="$1" '"'"'$1 == n {print $2}'"'"' /run/lab/pids | tail -1) && tr "\0" "\n" <"/proc/$p/cmdline"' _ "$name" \
      >"$LAB_RUN_DIR/jvm-gw$i.txt" 2>>"$LAB_LOGDIR/podman-compose.log" || : >"$LAB_RUN_DIR/jvm-gw$i.txt"
    podman exec "${LAB_DOCKER_PROJECT}_gw${i}_1" bash -c 'p=$(awk -v n="$1" '"'"'$1 == n {print $2}'"'"' /run/lab/pids | tail -1) && awk '"'"'$6 ~ /\.jsa$/ {print $6}'"'"' "/proc/$p/maps" | sort -u' _ "$name" \
      >"$LAB_RUN_DIR/jsa-gw$i.txt" 2>>"$LAB_LOGDIR/podman-compose.log" || : >"$LAB_RUN_DIR/jsa-gw$i.txt"
  done
  node "$ROOT/docker/report.mjs" "$LAB_RUN_DIR" "$(docker_container_states | tr '\n' ';')" "$(LAB_GW_JIT='' gateway_jit | tr '\n' ' ')" || rc=1
  ((rc == 0)) && log "docker: MO and MT calls carried through the containers (report: $(rel "$LAB_RUN_DIR")/report.json)" ||
    fail "docker: a call failed or a gateway container's JVM lacks ./lab's JIT options or its class-data sharing archive (report: $(rel "$LAB_RUN_DIR")/report.json; logs: $(rel "$LAB_LOGDIR")/loadgen-mo.log, loadgen-mt.log, sipp-mt.log)"
  exit "$rc"
}
