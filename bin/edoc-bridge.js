#!/usr/bin/env node
// The Node lines this program supports (package.json `engines` says the same; test/cli/node-version.test.ts
// ties the two). Checked before anything of the program is imported: on another Node a module could fail to
// load or behave differently later, so the refusal is one line, now, with exit 2 (a configuration error).
const SUPPORTED_LINES = [22, 24, 26];
const line = Number(process.versions.node.split('.')[0]);
if (!SUPPORTED_LINES.includes(line)) {
  process.stderr.write(`edoc-bridge: Node ${process.versions.node} is not supported; use Node ${SUPPORTED_LINES.slice(0, -1).join(', ')} or ${SUPPORTED_LINES.at(-1)} (any patch), see README "Node versions"\n`);
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
// before any of the program is loaded, so every command and every way of starting it gets it.
v8.setFlagsFromString('--heap-growing-percent=20');

// Whatever the umask it was started with, nothing the bridge creates is readable by the world: the
// ledger, logs, outbox and received documents are customer data. Files also get explicit modes where
// they are created (docs/operations.md, "File modes"); this covers folders and anything else.
process.umask(process.umask() | 0o007);

const { main } = await import('../dist/cli/main.js');
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 2; },
);
