/**
 * Issue 14, alerts: each kind reaches a real webhook receiver (node:http on 127.0.0.1) exactly once per
 * episode, raised by the real daemon (in the test process: startDaemon on the project's configuration,
 * the emulator over HTTP with its fault injection) — and no message carries a key.
 */
import path from 'node:path';
import { describe, expect } from 'vitest';
import { Ledger } from '../../src/ledger/ledger.js';
import { addDays, colombiaToday } from '../../src/policy/dates.js';
import { leakedSecrets, startInProcess, webhookReceiver } from '../helpers/alerting-daemon.js';
import { COMPANY_MAIN, eventually, seedFor, sleep } from '../helpers/daemon-harness.js';
import { daemonTest as test } from '../helpers/daemon-fixture.js';
import { invoice, jsonText } from '../helpers/documents.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';

const KEYS = [COMPANY_MAIN.apiKey, 'wrong-key-for-the-401'];

async function once(
  receiver: WebhookReceiver,
  kind: string,
  severity = 'error',
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  return eventually(
    () => receiver.messages.find((m) => m.body.kind === kind && m.body.severity === severity)?.body,
    `a ${severity} ${kind} alert (got ${receiver.messages.map((m) => `${String(m.body.kind)}/${String(m.body.severity)}`).join(', ')})`,
    timeoutMs,
  );
}

function count(receiver: WebhookReceiver, kind: string, severity?: string): number {
  return receiver.messages.filter(
    (m) => m.body.kind === kind && (severity === undefined || m.body.severity === severity),
  ).length;
}

function fe(number: number): Record<string, unknown> {
  return {
    ...invoice(number, COMPANY_MAIN),
    SeriePrefix: 'FE',
    CorrelationDocumentId: `ERP-FE-${number}`,
  };
}

describe('alerts reach the webhook once per episode', () => {
  test('service unreachable longer than serviceDownAfter, and back; the received pull failing and recovering', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    const { project, emulator } = await daemonProject({
      alerts: {
        webhook: receiver.url('/hook?token=hook-token-0123456789'),
        serviceDownAfter: '1s',
      },
      received: { enabled: true, every: '1s' },
      retry: { maxAttempts: 100, baseDelayMs: 100, maxDelayMs: 300 },
    });
    const port = Number(new URL(emulator.url).port);
    await startInProcess(resources, project);
    await emulator.close();
    await project.drop(
      'invoice',
      'while-down.json',
      jsonText([invoice(990_000_101, COMPANY_MAIN), invoice(990_000_102, COMPANY_MAIN)]),
    );
    const down = await once(receiver, 'service-down');
    await once(receiver, 'received-pull-failing', 'warning');
    await sleep(1_500); // more failures, more pulls: still one alert each
    expect(count(receiver, 'service-down')).toBe(1);
    expect(count(receiver, 'received-pull-failing')).toBe(1);
    await resources.emulator([COMPANY_MAIN], {}, { port });
    const up = await once(receiver, 'service-up', 'info');
    expect(up.id).toBe(down.id);
    await once(receiver, 'received-pull-recovered', 'info');
    const result = await project.finalResult('invoice', 'while-down.json', { timeoutMs: 30_000 });
    expect(result.counts.accepted).toBe(2);
    await sleep(1_000);
    expect(count(receiver, 'service-down')).toBe(1);
    expect(count(receiver, 'service-up')).toBe(1);
    expect(count(receiver, 'received-pull-failing')).toBe(1);
    expect(count(receiver, 'received-pull-recovered')).toBe(1);
    expect(leakedSecrets(receiver, [...KEYS, 'hook-token-0123456789'])).toEqual([]);
    expect(receiver.messages.every((m) => m.url === '/hook?token=hook-token-0123456789')).toBe(
      true,
    );
    const log = project.logLines();
    expect(
      log.some((l) => l.alert === 'service-down' && (l.level === 50 || l.level === 'error')),
    ).toBe(true);
    expect(JSON.stringify(log)).not.toContain('hook-token-0123456789');
  });

  test('a company paused by a 401: one alert for all its documents; ended when a reload fixes the key', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    const { project } = await daemonProject({
      alerts: { webhook: receiver.url() },
      apiKeys: { main: 'wrong-key-for-the-401' },
    });
    const running = await startInProcess(resources, project, { alerts: { tickMs: 100 } });
    await project.drop(
      'invoice',
      'refused.json',
      jsonText([1, 2, 3, 4].map((i) => invoice(990_000_200 + i, COMPANY_MAIN))),
    );
    const paused = await once(receiver, 'company-paused');
    expect(paused).toMatchObject({ company: 'main', severity: 'error' });
    await sleep(500);
    expect(count(receiver, 'company-paused')).toBe(1);
    await project.writeConfig({ ...project.options, apiKeys: {} });
    await running.reload();
    const resumed = await once(receiver, 'company-paused', 'info');
    expect(resumed.id).toBe(paused.id);
    await project.finalResult('invoice', 'refused.json', { timeoutMs: 20_000 });
    expect(count(receiver, 'company-paused')).toBe(2);
    expect(leakedSecrets(receiver, KEYS)).toEqual([]);
  });

  test('documents in doubt: one alert per company episode with a count, ended when none is in doubt', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    const { project, emulator } = await daemonProject({
      alerts: { webhook: receiver.url() },
      faults: { dropAfterCommitRate: 1 },
      retry: { maxAttempts: 20, baseDelayMs: 200, maxDelayMs: 400 },
    });
    await startInProcess(resources, project, { alerts: { tickMs: 100 } });
    await project.drop(
      'invoice',
      'lost.json',
      jsonText([1, 2, 3].map((i) => invoice(990_000_300 + i, COMPANY_MAIN))),
    );
    // each is issued and its answer lost; their resends then meet Regla 90: in doubt
    await eventually(
      async () => ((await emulator.client.issued()).length === 3 ? true : undefined),
      'three issued, answers lost',
    );
    await emulator.client.setFaults({});
    const result = await project.finalResult('invoice', 'lost.json', { timeoutMs: 30_000 });
    expect(result.counts.inDoubt).toBe(3);
    const opened = await once(receiver, 'document-in-doubt');
    expect(opened).toMatchObject({ company: 'main' });
    expect((opened.details as { documents: number }).documents).toBeGreaterThanOrEqual(1);
    await sleep(500);
    expect(count(receiver, 'document-in-doubt')).toBe(1);
    // the operator confirms them at the authority (what edoc-bridge resolve --issued records), from another connection
    const ledger = Ledger.open(project.stateDir, { shared: true });
    try {
      const ids = project
        .ledgerQuery<{ id: number }>(`SELECT id FROM documents WHERE state = 'in-doubt'`)
        .map((r) => r.id);
      await ledger.confirmIssued(ids, 'checked at the authority');
    } finally {
      await ledger.close();
    }
    const ended = await once(receiver, 'document-in-doubt', 'info');
    expect(ended.id).toBe(opened.id);
    expect(count(receiver, 'document-in-doubt')).toBe(2);
  });

  test('a burst of rejections: one alert for the burst, not one per document', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    // the emulator's day is after every range's end: the authority rejects each invoice (FAD05)
    const { project } = await daemonProject({
      alerts: { webhook: receiver.url(), rejections: { count: 3, within: '10m' } },
      emulatorOptions: { today: '2030-01-20' },
    });
    await startInProcess(resources, project);
    await project.drop(
      'invoice',
      'rejected.json',
      jsonText([1, 2, 3, 4, 5, 6, 7].map((i) => invoice(990_000_400 + i, COMPANY_MAIN))),
    );
    const result = await project.finalResult('invoice', 'rejected.json', { timeoutMs: 20_000 });
    expect(result.counts.rejected).toBe(7);
    const burst = await once(receiver, 'rejection-burst');
    expect(burst).toMatchObject({ company: 'main', details: { withinSeconds: 600 } });
    await sleep(300);
    expect(count(receiver, 'rejection-burst')).toBe(1);
  });

  test('numbering ranges: low, expiring, expired at start; exhausted once used up; a new range ends it; out of range refused locally', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    const today = colombiaToday();
    const seed = seedFor([COMPANY_MAIN]);
    const ranges = (seed.companies as { ranges: Record<string, unknown>[] }[])[0].ranges;
    const range = (
      prefix: string,
      resolution: string,
      from: number,
      to: number,
      validTo: string,
    ) => ({
      DocumentType: 'Invoice',
      Prefix: prefix,
      ResolutionNumber: resolution,
      ResolutionDate: '2026-01-01',
      TechnicalKey: null,
      FromNumber: from,
      ToNumber: to,
      ValidFrom: '2026-01-01T00:00:00',
      ValidTo: `${validTo}T23:59:59`,
      Active: true,
    });
    ranges.push(
      range('FE', '18764000010', 1, 4, addDays(today, 3)),
      range('OLD', '18764000011', 1, 1000, addDays(today, -2)),
    );
    const { project, emulator } = await daemonProject({
      seed: seed as never,
      alerts: { webhook: receiver.url() },
    });
    await startInProcess(resources, project);
    const low = await once(receiver, 'range-low', 'warning');
    expect(low).toMatchObject({ company: 'main', details: { prefix: 'FE', numbersLeft: 4 } });
    expect(await once(receiver, 'range-expiring', 'warning')).toMatchObject({
      details: { prefix: 'FE', daysLeft: 3 },
    });
    expect(await once(receiver, 'range-expired')).toMatchObject({ details: { prefix: 'OLD' } });
    // the other prefixes of the seed have plenty of numbers and years left: nothing about them
    expect(
      receiver.messages.filter(
        (m) =>
          (m.body.details as { prefix?: string }).prefix !== 'FE' &&
          (m.body.details as { prefix?: string }).prefix !== 'OLD',
      ),
    ).toEqual([]);

    await project.drop('invoice', 'use-up.json', jsonText([1, 2, 3, 4].map(fe)));
    expect((await project.finalResult('invoice', 'use-up.json')).counts.accepted).toBe(4);
    const exhausted = await once(receiver, 'range-exhausted');
    expect(exhausted).toMatchObject({ details: { prefix: 'FE', numbersLeft: 0 } });

    // a new resolution registered at the service: the next number beyond the old range triggers a re-read that finds it
    await emulator.client.resetStats();
    const res = await fetch(`${emulator.url}/public/api/numeraciones/v1/create`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': COMPANY_MAIN.apiKey,
        'x-company-id': String(COMPANY_MAIN.id),
      },
      body: JSON.stringify({
        Prefix: 'FE',
        AuthorizationNumber: '18764000012',
        ValidFrom: '2026-01-01T00:00:00',
        ValidTo: `${addDays(today, 400)}T23:59:59`,
        StartValue: 5,
        EndValue: 5000,
        DocumentType: 'Invoice',
      }),
    });
    expect(res.status).toBe(200);
    await project.drop('invoice', 'new-range.json', jsonText([fe(5)]));
    expect((await project.finalResult('invoice', 'new-range.json')).counts.accepted).toBe(1);

    // FE 9000: outside every range of FE (read again just now) — refused here, nothing sent
    await project.drop('invoice', 'beyond.json', jsonText([fe(9_000)]));
    const beyond = await project.finalResult('invoice', 'beyond.json');
    expect(beyond.documents[0]).toMatchObject({
      status: 'invalid',
      errors: [{ code: 'EDOC_VALIDATE_OUT_OF_RANGE' }],
    });
    expect(beyond.documents[0].errors[0].message).toContain('FE9000');
    expect(
      (await emulator.client.documents({ kind: 'invoice' })).map((d) => d.documentNumber),
    ).not.toContain('FE9000');
    // one E10 read for both (the re-read interval), one E1 (FE 5)
    expect((await emulator.client.stats()).requests).toMatchObject({
      E10: { 200: 1 },
      E1: { 200: 1 },
    });
    const fine = await once(receiver, 'range-exhausted', 'info');
    expect(fine.id).toBe(exhausted.id);
    await sleep(1_500);
    for (const kind of ['range-low', 'range-expiring', 'range-expired'])
      expect(count(receiver, kind, kind === 'range-expired' ? 'error' : 'warning')).toBe(1);
    expect(count(receiver, 'range-exhausted')).toBe(2);
    // low and expiring gave way to exhausted without a word: no "fine again" for them
    expect(count(receiver, 'range-low', 'info') + count(receiver, 'range-expiring', 'info')).toBe(
      0,
    );
    expect(leakedSecrets(receiver, KEYS)).toEqual([]);
  });

  test('documents still unsent as the Colombian day ends: one alert with their count (clock pinned to 23:40 in Bogotá)', async ({
    daemonProject,
    resources,
  }) => {
    const receiver = await webhookReceiver(resources);
    // a service nobody answers at: the documents stay pending
    const { project } = await daemonProject({
      alerts: { webhook: receiver.url(), dayEndLead: '30m' },
      baseUrl: 'http://127.0.0.1:9',
      retry: { maxAttempts: 100, baseDelayMs: 200, maxDelayMs: 500 },
    });
    let now = Date.parse('2026-11-25T04:10:00Z'); // 2026-11-24 23:10 in Colombia: 50 min left, not yet
    await startInProcess(resources, project, { alerts: { now: () => now, tickMs: 100 } });
    await project.drop(
      'invoice',
      'late.json',
      jsonText([1, 2, 3].map((i) => invoice(990_000_500 + i, COMPANY_MAIN))),
    );
    await eventually(
      () =>
        project.ledgerQuery<{ n: number }>(
          `SELECT count(*) AS n FROM documents WHERE state = 'pending'`,
        )[0].n === 3
          ? true
          : undefined,
      'three pending documents',
    );
    await sleep(500);
    expect(count(receiver, 'unsent-at-day-end')).toBe(0);
    now = Date.parse('2026-11-25T04:40:00Z'); // 23:40: 20 minutes left
    const alert = await once(receiver, 'unsent-at-day-end', 'warning');
    expect(alert).toMatchObject({
      company: 'main',
      details: { documents: 3, day: '2026-11-24', minutesLeft: 20 },
    });
    await sleep(500);
    expect(count(receiver, 'unsent-at-day-end')).toBe(1);
    expect(path.basename(project.logFile)).toBe('edoc-bridge.log');
  });
});
