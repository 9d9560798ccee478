#!/usr/bin/env node
import v8 from 'node:v8';
import { holdEarlyHangups } from '../dist/cli/early-hangup.js';

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
