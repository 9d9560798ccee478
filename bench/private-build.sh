#!/bin/sh
# A private build of this checkout for the bench (EDOC_BENCH_CODE), so a dist/ rebuilt by
# someone else mid-run cannot change the code under test:
#   sh bench/private-build.sh /tmp/edoc-bench-code && EDOC_BENCH_CODE=/tmp/edoc-bench-code node --expose-gc bench/run.mjs
set -e
out="${1:-/tmp/edoc-bench-code}"
root="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$out/dist"
mkdir -p "$out/bin"
cp "$root/bin/edoc-bridge.js" "$out/bin/"
cp "$root/package.json" "$out/"
ln -sfn "$root/node_modules" "$out/node_modules"
(cd "$root" && npx tsc -p tsconfig.build.json --outDir "$out/dist") || echo "tsc reported errors (emitted anyway)" >&2
test -f "$out/dist/cli/main.js"
