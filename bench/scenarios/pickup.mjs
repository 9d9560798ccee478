// 4. Pickup: a file renamed into the inbox (from a `.part` name) → its first request at the
// emulator, and a file written in place under its final name → first request, against
// watch.stableMs. One daemon, one one-invoice JSON file at a time.
import { invoice } from '../lib/documents.mjs';
import { startBenchEmulator } from '../lib/emulator.mjs';
import { DaemonProcess, Project } from '../lib/project.mjs';
import { log, median, round, sleep, until } from '../lib/util.mjs';

const STABLE_MS = 1000;

async function firstRequestAfter(emulator, before, droppedAt) {
  await until(
    () => (emulator.trace.arrivals > before ? true : undefined),
    'the first request',
    30_000,
    2,
  );
  const at = emulator.trace.times[before];
  await until(
    () => (emulator.trace.answers >= before + 1 ? true : undefined),
    'the answer',
    30_000,
    5,
  );
  return at - droppedAt;
}

export async function pickup({ runs, quick }) {
  const trials = quick ? 3 : Math.max(10, runs * 3);
  const emulator = await startBenchEmulator({}, { keepArrivals: true });
  const project = await Project.create({
    baseUrl: emulator.url,
    rate: { requestsPerSecond: 100, concurrency: 4 },
    stableMs: STABLE_MS,
  });
  const renamed = [];
  const inPlace = [];
  let number = 990_100_000;
  let daemon;
  try {
    daemon = await DaemonProcess.start(project);
    for (let i = 0; i < trials; i++) {
      for (const [mode, out] of [
        ['renamed', renamed],
        ['in-place', inPlace],
      ]) {
        const before = emulator.trace.arrivals;
        const text = JSON.stringify(invoice(number++));
        const at =
          mode === 'renamed'
            ? await project.dropRenamed('invoice', `pickup-${i}-r.json`, text)
            : await project.dropInPlace('invoice', `pickup-${i}-w.json`, text);
        out.push(round(await firstRequestAfter(emulator, before, at), 1));
        await sleep(150);
      }
    }
  } finally {
    await daemon?.stop();
    await emulator.close();
    await project.remove();
  }
  log(`pickup renamed ms ${renamed.join(' ')}; in place ms ${inPlace.join(' ')}`);
  return {
    trials,
    stableMs: STABLE_MS,
    renamedMedianMs: round(median(renamed), 1),
    inPlaceMedianMs: round(median(inPlace), 1),
    // A renamed-in file taken only after stableMs means its staging name went unseen (with fs events
    // the watcher notes staging names from the kernel's own events; see InboxWatcher.watchStagingNames).
    renamedTakenAfterStableMs: renamed.filter((ms) => ms >= STABLE_MS).length,
    inPlaceOverStableMs: round(median(inPlace) - STABLE_MS, 1),
    renamedMs: renamed,
    inPlaceMs: inPlace,
  };
}
