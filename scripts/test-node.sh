#!/usr/bin/env bash
# The test suite on one Node.js release from the npm registry, in this tree.
#
#   scripts/test-node.sh 22.23.3                 # the whole suite (vitest run)
#   scripts/test-node.sh 22.23.3 test/ledger     # only these vitest paths
#   scripts/test-node.sh 26.12.1 --npm-test      # npm test (typecheck, lint, build, suite)
#
# scripts/install-node.sh installs the release (cached in .cache/node/); it goes first on PATH, so npm,
# vitest and every CLI the tests spawn (process.execPath or `node`) run on it. node_modules serves every
# supported line as it is: better-sqlite3 13 is a Node-API addon (one binary for Node 22, 24 and 26),
# so nothing is rebuilt. Run `npm ci` (on any supported Node) first.
set -euo pipefail
version="${1:?usage: scripts/test-node.sh VERSION [--npm-test | vitest paths...]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
bindir="$("$root/scripts/install-node.sh" "$version")"
[ -d "$root/node_modules" ] || { echo "test-node: run npm ci first" >&2; exit 1; }
cd "$root"
export PATH="$bindir:$PATH"
node -e "new (require('better-sqlite3'))(':memory:').close()"
echo "test-node: $(node --version) from $bindir"
if [ "${1:-}" = --npm-test ]; then
  npm test
else
  npx vitest run "$@"
fi
