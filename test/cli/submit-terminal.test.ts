/**
 * `edoc-bridge submit` on a terminal and off one (issue 15 item 1): in a
 * pseudo-terminal (`script`) the per-document lines print above a progress bar
 * redrawn in place, checked on the final screen a small interpreter rebuilds;
 * through a pipe there is no bar.
 */
import { beforeAll, describe, expect } from 'vitest';
import { runShell } from '../helpers/cli-runner.js';
import { buildCli } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';
import { screenText } from '../helpers/terminal-screen.js';

beforeAll(async () => {
  await buildCli();
}, 240_000);

function numbers(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

describe('submit on a terminal and off one', () => {
  test('on a terminal the per-document lines print above the bar, which is redrawn in place and left once, complete, at the end', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const nums = numbers(990_103_101, 40);
    const file = await p.exportFile('pantalla.json', jsonText(nums.map((n) => invoice(n))));
    const run = await runShell(
      p,
      `script -qec '"$NODE" "$BIN" submit ${file} --kind invoice --config ${p.configFile}' /dev/null`,
    );
    expect(run.code, run.stdout).toBe(0);
    const screen = screenText(run.stdout);
    const bar = /^\[[#-]{30}\] \d+\/40 {2}accepted \d+ {2}not accepted \d+$/;
    const bars = screen.filter((line) => /\[[#-]{5}/.test(line));
    // every line with bar characters is a bar and nothing else, and only the final one is left on screen
    expect(bars).toEqual(['[##############################] 40/40  accepted 40  not accepted 0']);
    for (const line of bars) expect(line).toMatch(bar);
    const finals = screen.filter((line) => line.includes('document final'));
    expect(finals).toHaveLength(40);
    for (const line of finals)
      expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}document final {2}/);
    expect(screen.indexOf(bars[0])).toBeGreaterThan(screen.lastIndexOf(finals[39]));
    expect(screen.at(-1)).toMatch(/pantalla\.json: 40 document\(s\): 40 accepted/);
  });

  test('off a terminal (a pipe) there is no bar and no carriage return', async ({
    daemonProject,
  }) => {
    const { project: p } = await daemonProject();
    const file = await p.exportFile(
      'tubo.json',
      jsonText(numbers(990_103_201, 5).map((n) => invoice(n))),
    );
    const run = await runShell(
      p,
      `"$NODE" "$BIN" submit ${file} --kind invoice --config ${p.configFile} 2>&1 | cat`,
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).not.toContain('\r');
    expect(run.stdout).not.toMatch(/\[[#-]{30}\]/);
    expect(run.stdout).toMatch(/tubo\.json: 5 document\(s\): 5 accepted/);
  });
});
