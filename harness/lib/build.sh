# shellcheck shell=bash
# Builds what is stale: the gateway jar (Maven), the harness's npm deps, the media-relay C++ tools.
# Tool output goes to out/build/*.log and is shown (its tail) only when the tool fails.

GATEWAY_JAR="$ROOT/signaling-gw/target/signaling-gw.jar"
BUILD_LOGS="$ROOT/out/build"

# quiet_run LOG CMD... — run CMD in the repo root with all output to LOG; on failure show its tail.
quiet_run() {
  local logf=$1; shift
  mkdir -p "$BUILD_LOGS"
  if ! (cd "$ROOT" && "$@") >"$logf" 2>&1; then show_tail "$logf" 30; return 1; fi
}

gateway_stale() {
  [[ -f $GATEWAY_JAR ]] || return 0
  local newer
  newer=$(find "$ROOT/signaling-gw/src" "$ROOT/pom.xml" "$ROOT"/*/pom.xml -newer "$GATEWAY_JAR" -print -quit 2>/dev/null)
  [[ -n $newer ]]
}

build_gateway() {
  [[ -f $ROOT/pom.xml ]] || { fail "no pom.xml in $ROOT: cannot build the gateway"; return 1; }
  if ! gateway_stale; then
    log "gateway jar is up to date"
    build_gateway_cds
    return 0
  fi
  local logf="$BUILD_LOGS/maven-package.log"
  log "building the gateway: mvn -B -q package -DskipTests (log: $(rel "$logf"))"
  quiet_run "$logf" mvn -B -q -ntp package -DskipTests ||
    { fail "gateway build failed (log: $(rel "$logf"))"; return 1; }
  [[ -f $GATEWAY_JAR ]] || { fail "the build did not produce $(rel "$GATEWAY_JAR")"; return 1; }
  # Maven may leave an unchanged jar's timestamp alone; mark it fresh so it is not rebuilt next run.
  touch "$GATEWAY_JAR"
  log "gateway built: $(rel "$GATEWAY_JAR")"
  build_gateway_cds
}

# The gateway's class-data sharing (JDK AppCDS, docs/architecture.md "Starting the gateway"): the jar extracted
# (Spring Boot's `-Djarmode=tools extract`: the application jar and lib/, which CDS can map, unlike jars nested in
# a jar) and a dynamic archive of the classes a start loads, written by one training start that exits once the
# Spring context is refreshed. A gateway started from it reads those classes from the archive instead of parsing
# and verifying them: about half the CPU of a start. The same code runs; without a current archive (a failed
# training, another checkout's path, e.g. a container's /lab) the gateway starts from the jar as before.
# The docker/ containers (LAB_IN_CONTAINER=1) have their own: the archive only maps into the JVM that made it and with
# the class path it was made with, and theirs are the base image's java and the repo at /lab (./lab docker trains it in
# the base image before the containers start: harness/lib/docker.sh docker_gateway_cds).
GATEWAY_CDS_DIR="$ROOT/signaling-gw/target/cds"
GATEWAY_CDS_CONTAINER_DIR="$ROOT/signaling-gw/target/cds-container"
gateway_cds_dir() { if [[ ${LAB_IN_CONTAINER:-} == 1 ]]; then echo "$GATEWAY_CDS_CONTAINER_DIR"; else echo "$GATEWAY_CDS_DIR"; fi; }

# gateway_cds_id — what the archive was made for: this checkout's jar (path, size, time) and this java.
gateway_cds_id() {
  printf '%s %s %s\n' "$GATEWAY_JAR" "$(stat -c '%s %Y' "$GATEWAY_JAR" 2>/dev/null)" "$(readlink -f "$(command -v java)")"
}

gateway_cds_current() {
  local dir
  dir=$(gateway_cds_dir)
  [[ -s $dir/gw.jsa && -f $dir/signaling-gw.jar && -f $dir/made-for ]] && [[ $(<"$dir/made-for") == "$(gateway_cds_id)" ]]
}

# build_gateway_cds — extract the jar and train the archive when the jar (or java) changed. The training start runs
# in a network namespace of its own (the lab's ports may be in use here); a failure costs only the speed-up (one
# NOTICE line; the gateway then starts from the jar).
build_gateway_cds() {
  gateway_cds_current && return 0
  local dir logf="$BUILD_LOGS/gateway-cds${LAB_IN_CONTAINER:+-container}.log"
  dir=$(gateway_cds_dir)
  local -a netns=(unshare --net --)
  ((EUID == 0)) || netns=(unshare --user --map-root-user --net --)
  [[ ${LAB_IN_CONTAINER:-} == 1 ]] && netns=() # a container of its own without a network (docker_gateway_cds)
  mkdir -p "$BUILD_LOGS"
  log "gateway class-data sharing: extracting the jar and training the archive (log: $(rel "$logf"))"
  # Without the LAB_* variables (env -i): Spring reads e.g. LAB_IMS (exported by components.sh) as the property lab.ims,
  # and without the lab's --lab.ims.* options the gateway then cannot bind its settings and does not start.
  # in place: the archive holds the class path it was made with (paths, sizes, times), and a JVM with another
  # one maps none of its classes. -Xshare:on at the end checks that a start can use it (it refuses to start if not).
  rm -rf "$dir"
  if ! { java -Djarmode=tools -jar "$GATEWAY_JAR" extract --destination "$dir" &&
    "${netns[@]}" bash -c 'ip link set lo up && exec "$@"' _ env -i PATH="$PATH" HOME="${HOME:-/root}" timeout 300 java -XX:ArchiveClassesAtExit="$dir/gw.jsa" \
      -Dspring.context.exit=onRefresh -jar "$dir/signaling-gw.jar" --lab.webclient.dir="$ROOT/webclient/public" &&
    [[ -s $dir/gw.jsa ]] && java -Xshare:on -XX:SharedArchiveFile="$dir/gw.jsa" -cp "$dir/signaling-gw.jar" -version; } >"$logf" 2>&1; then
    rm -rf "$dir"
    log "NOTICE: no class-data sharing archive for the gateway (it starts from the jar; log: $(rel "$logf"))"
    return 0
  fi
  gateway_cds_id >"$dir/made-for"
  log "gateway class-data sharing archive ready: $(rel "$dir")/gw.jsa"
}

# gateway_java — the java arguments that start the gateway, one per line, up to and including the jar (the gateway's
# own options follow): from the extracted jar with its archive when that is current, else from the jar.
# -Xlog:...=off: the JVM's CDS warnings (e.g. an archive it cannot map: it then loads the classes itself) stay out
# of the gateway's log.
# The JIT: C1 only (-XX:TieredStopAtLevel=1; docs/benchmarks.md "Set-up on the wire"). A lab gateway starts fresh for
# each run and sets up a few calls while its code is still cold; with the JVM's default (tiered up to C2) the C2
# compiler threads took the 2 shared cores while those calls ran, and C1-compiled code is soon enough for the
# gateway's rates. LAB_GW_JIT=tiered keeps the JVM's default (to compare).
gateway_jit() {
  [[ ${LAB_GW_JIT:-c1} == tiered ]] || printf '%s\n' -XX:TieredStopAtLevel=1
}

gateway_java() {
  local dir
  dir=$(gateway_cds_dir)
  gateway_jit
  if gateway_cds_current; then
    printf '%s\n' "-XX:SharedArchiveFile=$dir/gw.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off -jar "$dir/signaling-gw.jar"
  else
    printf '%s\n' -jar "$GATEWAY_JAR"
  fi
}

# build_harness — the harness's npm deps (harness/package.json: Playwright, fft.js, Chart.js), which
# every subcommand that runs node needs, and the page's vendored copy of Chart.js.
build_harness() {
  local dir="$ROOT/harness" logf="$BUILD_LOGS/npm-ci.log"
  [[ -f $dir/package-lock.json ]] || { fail "harness/package-lock.json is missing"; return 1; }
  if [[ ! -d $dir/node_modules || $dir/package-lock.json -nt $dir/node_modules ]]; then
    log "installing the harness's npm deps: npm ci (log: $(rel "$logf"))"
    # Playwright's own browser download is unreachable here; the lab drives the Debian Chromium.
    quiet_run "$logf" env PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm --prefix harness ci --no-audit --no-fund ||
      { fail "npm ci in harness/ failed (log: $(rel "$logf"))"; return 1; }
    touch "$dir/node_modules"
  elif [[ -d $ROOT/webclient/public/vendor ]]; then
    log "harness npm deps are up to date"
    return 0
  fi
  # The vendor step copies browser libraries from node_modules into webclient/public/vendor/.
  quiet_run "$BUILD_LOGS/npm-vendor.log" npm --prefix harness run --if-present vendor ||
    { fail "the harness's vendor step failed (log: $(rel "$BUILD_LOGS/npm-vendor.log"))"; return 1; }
  log "harness npm deps installed and vendored"
}

# build_media_relay — configure + build the CMake tools; returns 2 when there is no CMake project.
build_media_relay() {
  [[ -f $ROOT/media-relay/CMakeLists.txt ]] || return 2
  local logf="$BUILD_LOGS/cmake.log"
  log "building media-relay (cmake, log: $(rel "$logf"))"
  quiet_run "$logf" bash -c 'cmake -S media-relay -B media-relay/build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build media-relay/build -j 2' ||
    { fail "media-relay build failed (log: $(rel "$logf"))"; return 1; }
  log "media-relay built: media-relay/build (loadgen, delaymeter, datachannel and their tests)"
  # loadgen falls back to the system libsrtp2 when its OpenSSL build's source cannot be fetched.
  if grep -q 'loadgen: NOTICE' "$logf"; then
    log "NOTICE: loadgen uses the system libsrtp2 (NSS): its OpenSSL build's source could not be fetched (log: $(rel "$logf"))"
  fi
}

# build_pyenv — the harness's PyPI packages (harness/python/requirements.txt: aiortc, the WebRTC peers of
# datachannel.test.mjs) in a venv of Debian's python3 at out/pyenv; reinstalled when the list is newer.
PYENV="$ROOT/out/pyenv"
build_pyenv() {
  local req="$ROOT/harness/python/requirements.txt" logf="$BUILD_LOGS/pip.log"
  [[ -f $req ]] || { fail "harness/python/requirements.txt is missing"; return 1; }
  if [[ -x $PYENV/bin/python && -f $PYENV/.installed && ! $req -nt $PYENV/.installed ]]; then
    log "python venv is up to date ($(rel "$PYENV"))"
    return 0
  fi
  log "installing the harness's PyPI packages into $(rel "$PYENV"): pip install -r harness/python/requirements.txt (log: $(rel "$logf"))"
  quiet_run "$logf" bash -c '/usr/bin/python3 -m venv "$1" && "$1/bin/pip" install --disable-pip-version-check -q -r "$2"' _ "$PYENV" "$req" ||
    { fail "pip install into $(rel "$PYENV") failed (log: $(rel "$logf"))"; return 1; }
  touch "$PYENV/.installed"
  log "python venv ready: $(rel "$PYENV")"
}
