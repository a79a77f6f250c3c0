#!/usr/bin/env bash
# npm run fuzz: every fast-check property of test/fuzz/ at its full count (FUZZ_SCALE=1; npm test
# runs 5 % of it), then the case count of each property and the total. Fails when a property fails
# or when fewer than 100,000 cases ran. FUZZ_SEED=<n> replays a reported seed.
set -euo pipefail
cd "$(dirname "$0")/.."
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
export FUZZ_SCALE="${FUZZ_SCALE:-1}"
FUZZ_COUNTS_FILE="$counts" npx vitest run test/fuzz "$@"
# shellcheck disable=SC2016 # the single-quoted text is JavaScript, not shell
FUZZ_MIN="${FUZZ_MIN:-100000}" node -e '
  const lines = require("node:fs").readFileSync(process.argv[1], "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  let total = 0;
  console.log("fuzz: cases per property");
  for (const { name, numRuns, ms } of lines) {
    total += numRuns;
    console.log(`  ${name.padEnd(40)} ${String(numRuns).padStart(8)} cases  ${(ms / 1000).toFixed(1).padStart(6)} s`);
  }
  console.log(`  ${"total".padEnd(40)} ${String(total).padStart(8)} cases`);
  const min = Number(process.env.FUZZ_MIN);
  if (process.env.FUZZ_SCALE === "1" && total < min) {
    console.error(`fuzz: ${total} cases, fewer than ${min}`);
    process.exit(1);
  }
' "$counts"
