/**
 * A reload (SIGHUP) that restarts the inbox watcher on a folder that cannot be made — a file in the place
 * of a kind's folder, or of a company added by the reload — is refused before anything changes: the old
 * configuration stays in force and every other inbox is still watched. The real CLI as a child process.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { BUILD_TIMEOUT_MS, daemonTest as test } from '../helpers/daemon-fixture.js';
import {
  buildCli,
  COMPANY_MAIN,
  COMPANY_OTHER,
  type Project,
  type TestCompany,
} from '../helpers/daemon-harness.js';
import { invoice, jsonText } from '../helpers/documents.js';

beforeAll(buildCli, BUILD_TIMEOUT_MS);

const THIRD: TestCompany = {
  alias: 'third',
  id: 1003,
  nit: '900555666',
  checkDigit: '1',
  apiKey: 'test-key-1003',
  userId: 9,
};

/** Drops one invoice in the company's inbox and returns how many documents of it were accepted. */
async function accepted(
  project: Project,
  name: string,
  number: number,
  company?: TestCompany,
): Promise<number> {
  await project.drop('invoice', name, jsonText(invoice(number, company)), company?.alias);
  const result = await project.finalResult('invoice', name, { company: company?.alias });
  return result.counts.accepted;
}

describe('a reload whose inbox folder cannot be made', () => {
  test("a file put in the place of a kind's folder while running, then a reload that changes watch: refused naming the folder; the other kinds are still watched", async ({
    daemonProject,
  }) => {
    const { project, startDaemon } = await daemonProject({ companies: [COMPANY_MAIN] });
    const daemon = await startDaemon();
    const folder = project.inbox('credit-note');
    await rm(folder, { recursive: true });
    await writeFile(folder, 'a file where the folder should be\n');
    await project.writeConfig({ ...project.options, stableMs: 300 });
    const refused = await daemon.reload();
    expect(refused.msg).toBe('new configuration refused; the old one stays in force');
    expect(refused.code).toBe('EDOC_CONFIG_NOT_WRITABLE');
    expect(JSON.stringify(refused.err)).toContain(
      `the inbox folder ${folder} cannot be made (a file is in its place)`,
    );
    expect(await accepted(project, 'after.json', 990_000_001)).toBe(1);
    expect(daemon.running).toBe(true);
    expect(daemon.stderr).toBe('');
  }, 60_000);

  test('a company added by a reload with a file in the place of its folder: refused; once the file is moved, the next reload adds it', async ({
    daemonProject,
  }) => {
    const companies = [COMPANY_MAIN, COMPANY_OTHER];
    const { project, startDaemon } = await daemonProject({ companies });
    const daemon = await startDaemon();
    const blocker = path.join(project.dir, 'inbox', THIRD.alias);
    await writeFile(blocker, 'a file where the folder should be\n');
    await project.writeConfig({ ...project.options, companies: [...companies, THIRD] });
    const refused = await daemon.reload();
    expect(refused.msg).toBe('new configuration refused; the old one stays in force');
    expect(refused.code).toBe('EDOC_CONFIG_NOT_WRITABLE');
    expect(JSON.stringify(refused.err)).toContain(path.join(blocker, 'invoice'));
    expect(await accepted(project, 'main.json', 990_000_001, COMPANY_MAIN)).toBe(1);

    await rm(blocker);
    const since = project.logLines().length;
    expect((await daemon.reload()).msg).toBe('configuration reloaded');
    const watching = await project.waitForLog((l) => l.msg === 'watching the inbox', { since });
    expect(watching.folders).toContain(path.join(blocker, 'invoice'));
    expect(await accepted(project, 'other.json', 990_000_002, COMPANY_OTHER)).toBe(1);
    expect(daemon.stderr).toBe('');
  }, 60_000);
});
