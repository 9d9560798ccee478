#!/bin/bash
# What the overhead scenario's daemon costs with parts of its work taken out, each step on top of the
# one before (an experiment, not a configuration: the builds it makes break guarantees on purpose):
#   bash bench/overhead-ablation.sh [RUNS] [OUT_DIR]
#     base         this checkout's build
#     no-fsync     + the ledger opened synchronous = OFF (no fsync at any commit)
#     no-log       + no `document final` log line per document
#     no-partial   + no partial report rewrite (only the final report is written)
#     no-validate  + no validation of the documents read (validateDocument returns no problem)
# The builds go to OUT_DIR (default /tmp/edoc-ablation) and alternate, one bench/overhead-threads.mjs
# run each per round; the medians of each are printed last. A patch that no longer applies to the
# built code stops the script (the grep after each sed).
set -euo pipefail
runs="${1:-4}"
out="${2:-/tmp/edoc-ablation}"
root="$(cd "$(dirname "$0")/.." && pwd)"
sh "$root/bench/private-build.sh" "$out/base" >/dev/null

variant() { # NAME FROM FILE SED_EXPRESSION CHECK_PATTERN
  rm -rf "${out:?}/$1"
  cp -a "$out/$2" "$out/$1"
  ln -sfn "$root/node_modules" "$out/$1/node_modules"
  sed -i "$4" "$out/$1/dist/$3"
  grep -q -- "$5" "$out/$1/dist/$3" || { echo "overhead-ablation: the $1 patch did not apply to dist/$3" >&2; exit 1; }
}
# the daemon's ledger is opened by ledger/ledger.js (ledger/sql/sqlite.js opens the one of `ledger copy`)
variant no-fsync base ledger/ledger.js "s/db.pragma('synchronous = FULL');/db.pragma('synchronous = OFF');/g" "synchronous = OFF"
! grep -q "synchronous = FULL" "$out/no-fsync/dist/ledger/ledger.js" || { echo "overhead-ablation: FULL left in ledger.js" >&2; exit 1; }
variant no-log no-fsync submit/company-sender.js \
  "s/this.options.logger.info({ file: doc.fileName/void ({ file: doc.fileName/; s/}, 'document final');/}, 'document final'); \/\/ ablated/" \
  "void ({ file: doc.fileName"
variant no-partial no-log daemon/report-scheduler.js "s/this.intervalMs = options.intervalMs ?? 1_000;/this.intervalMs = 1e9; \/\/ ablated/" "ablated"
variant no-validate no-partial kinds/validate-document.js "s/export function validateDocument(kind, request, ctx) {/export function validateDocument(kind, request, ctx) { return []; \/\/ ablated/" "ablated"

results="$out/results.txt"
: >"$results"
names=(base no-fsync no-log no-partial no-validate)
for r in $(seq 1 "$runs"); do
  for name in "${names[@]}"; do
    line="$(EDOC_BENCH_CODE="$out/$name" node "$root/bench/overhead-threads.mjs" 1 | head -n 1)"
    echo "$name $line" | tee -a "$results"
  done
done
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => [l.slice(0, l.indexOf(" ")), JSON.parse(l.slice(l.indexOf(" ") + 1))]);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
console.log("median of " + process.argv[2] + " runs: wall ms (intake), daemon CPU ms: main, worker, helpers");
for (const name of process.argv.slice(3)) {
  const r = rows.filter(([n]) => n === name).map(([, x]) => x);
  const cpu = (k) => med(r.map((x) => x.intake[k] + x.sending[k]));
  console.log(`  ${name.padEnd(12)} ${med(r.map((x) => x.ms))} (${med(r.map((x) => x.intakeMs))})  CPU ${med(r.map((x) => x.cpuMs))}: ${cpu("main")}, ${cpu("worker")}, ${cpu("helpers")}`);
}' "$results" "$runs" "${names[@]}"
