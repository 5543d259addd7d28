#!/usr/bin/env bash
# fetch-libsrtp.sh DIR — Debian's own libsrtp2 source package (the one the system libsrtp2 is built
# from), unpacked with its Debian patches into DIR/src, for loadgen's OpenSSL build of libsrtp2
# (docs/loadgen.md "SRTP library"). apt gets a deb-src entry for these calls only (a private sources
# list and lists/cache dirs under DIR/apt); /etc/apt is not touched. The package is verified by apt
# (signed Sources index) and dpkg-source (checksums). Exit 0 = DIR/src holds the source; else 1 with
# one reason line on stderr.
set -euo pipefail
dir=${1:?usage: fetch-libsrtp.sh DIR}
pkg=libsrtp2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[[ -f $dir/src/CMakeLists.txt ]] && exit 0
for tool in apt-get dpkg-source; do
  command -v "$tool" >/dev/null || { echo "fetch-libsrtp: $tool not found" >&2; exit 1; }
done
# The suite of the installed Debian (bookworm here), so the source matches the system's libsrtp2.
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[[ -n $suite ]] || { echo "fetch-libsrtp: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }
mirror=${LOADGEN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
apt_dir=$dir/apt
rm -rf "$apt_dir" "$dir/src" "$dir/unpack"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$dir/unpack"
echo "deb-src $mirror $suite main" >"$apt_dir/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
log=$dir/fetch.log
if ! timeout 120 apt-get "${apt_opts[@]}" update >"$log" 2>&1; then
  echo "fetch-libsrtp: apt-get update of $mirror $suite (deb-src) failed (log: $log)" >&2; exit 1
fi
if ! (cd "$dir/unpack" && timeout 120 apt-get "${apt_opts[@]}" --download-only source "$pkg") >>"$log" 2>&1; then
  echo "fetch-libsrtp: apt-get source $pkg failed (log: $log)" >&2; exit 1
fi
dsc=$(ls "$dir"/unpack/"$pkg"_*.dsc 2>/dev/null | head -1)
[[ -n $dsc ]] || { echo "fetch-libsrtp: no $pkg .dsc downloaded (log: $log)" >&2; exit 1; }
if ! (cd "$dir/unpack" && dpkg-source -x "$(basename "$dsc")" tree) >>"$log" 2>&1; then
  echo "fetch-libsrtp: dpkg-source -x $(basename "$dsc") failed (log: $log)" >&2; exit 1
fi
[[ -f $dir/unpack/tree/CMakeLists.txt ]] || { echo "fetch-libsrtp: the source has no CMakeLists.txt" >&2; exit 1; }
mv "$dir/unpack/tree" "$dir/src"
basename "$dsc" .dsc >"$dir/src/.debian-source"
rm -rf "$dir/unpack" "$apt_dir"
echo "fetch-libsrtp: $(cat "$dir/src/.debian-source") from $mirror $suite"
