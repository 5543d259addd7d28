#!/usr/bin/env bash
# build-hss.sh — builds the HSS (hss/ → hss/build/hss) and runs its unit tests with ctest.
# Needs: cmake, a C compiler, pkg-config, libfreediameter-dev, libosmocore-dev, libssl-dev.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
B="$HERE/hss/build"
missing=()
for h in /usr/include/freeDiameter/libfdcore.h /usr/include/osmocom/crypt/auth.h /usr/include/openssl/evp.h; do
  [ -f "$h" ] || missing+=("$h")
done
command -v cmake >/dev/null || missing+=(cmake)
if ((${#missing[@]})); then
  echo "build-hss: missing ${missing[*]}; apt-get install cmake build-essential pkg-config libfreediameter-dev freediameter-extensions libosmocore-dev libssl-dev" >&2
  exit 2
fi
cmake -S "$HERE/hss" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" -j2 >/dev/null
[ "${1:-}" = --no-test ] || (cd "$B" && ctest --output-on-failure)
