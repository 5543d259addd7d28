# shellcheck shell=bash
# shellcheck disable=SC2034 # read by the files that source this one
# The lab's addresses and ports for bash: the one table harness/addresses.env (also read by Node, Python
# and CMake/C++; docs/architecture.md "Components, addresses and ports"), plus what only bash needs.
# ./lab, harness/tests/*.sh and media-relay's CTest scripts source this file; the components' own start
# scripts take the values as arguments or environment.

# shellcheck source=../addresses.env
source "$(dirname "${BASH_SOURCE[0]}")/../addresses.env"

LAB_RTPENGINE_IFACES=(pub/$LAB_PUB_ADDR "ims/$LAB_LOOPBACK") # rtpengine --interface=NAME/ADDR, browser side first
