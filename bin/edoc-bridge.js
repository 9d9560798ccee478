#!/usr/bin/env node
// The Node lines this program supports, each from its lowest working release (package.json `engines` says
// the same; test/cli/node-version.test.ts ties the two): 22 from 22.14, whose Node-API 10 better-sqlite3 13
// needs (22.13 and older crash loading it). Checked before anything of the program is imported: on another
// Node a module could fail to load or misbehave later, so the refusal is one line, now, exit 2.
// One line, unformatted: test/cli/node-version.test.ts reads this constant from the source.
// prettier-ignore
const SUPPORTED = [[22, 14], [24, 0], [26, 0]];
const [major, minor] = process.versions.node.split('.').map(Number);
if (!SUPPORTED.some(([m, n]) => major === m && minor >= n)) {
  const lines = SUPPORTED.map(([m, n]) => (n === 0 ? `${m}` : `${m} (${m}.${n} or later)`));
  process.stderr.write(
    `edoc-bridge: Node ${process.versions.node} is not supported; use Node ${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}, see README "Node versions"\n`,
  );
  process.exit(2);
}

const { default: v8 } = await import('node:v8');
const { holdEarlyHangups } = await import('../dist/cli/early-hangup.js');

// `run`: a SIGHUP (logrotate's `systemctl reload`) while the program loads would end it silently, and
// systemd would not restart it; it is held until run listens, and reloaded then (src/cli/early-hangup.ts).
holdEarlyHangups(process.argv.slice(2));

// After each full collection V8 lets the old generation grow by a factor of up to 4 before the next
// one, so the daemon reading a large export carries some 100 MB of garbage it never needs
// (docs/benchmarks.md, "Memory"). Growing it by 20 % collects that garbage sooner for a few per cent of
// CPU, and unlike a heap cap (--max-old-space-size) it cannot turn a large received-documents page
// into an out-of-memory crash. The flag is a heuristic V8 reads at every collection; it is set here,
// before any of the program is loaded, so every command and every way of starting it gets it. The daemon
// and `submit` keep it only while a large export is read (src/intake/heap-growth.ts).
v8.setFlagsFromString('--heap-growing-percent=20');

// Whatever the umask it was started with, nothing the bridge creates is readable by the world: the
// ledger, logs, outbox and received documents are customer data. Files also get explicit modes where
// they are created (docs/operations.md, "File modes"); this covers folders and anything else.
process.umask(process.umask() | 0o007);

const { main } = await import('../dist/cli/main.js');
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 2;
  },
);
