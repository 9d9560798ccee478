/**
 * A process that stops running for longer than the service timeout (SIGSTOP, a suspended machine, a
 * main thread blocked) while a call is in flight: the answer the service sent meanwhile is waiting in
 * the socket when the process runs again. Node runs expired timers before it reads sockets, so a
 * deadline that aborts at once discards an answer that came in time — a numbered document sent again
 * is then refused as a repeated number and left in doubt for the operator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';
import type { InvoiceRequest } from '../../src/service/schemas/index.js';
import { OK_MESSAGE } from '../cases/result-codes.js';

const ACCEPTED = {
  Errors: [],
  IsValid: true,
  ResultCode: 200,
  Warning: [],
  ResultData: OK_MESSAGE,
};

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** Blocks this thread (timers, sockets, everything) for `ms`, as SIGSTOP would. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('a call in flight while the process is frozen past its timeout', () => {
  it('an answer that arrived while the process was frozen is read, not discarded by the deadline', async () => {
    let received: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    // the service answers 50 ms after the request: well within the 300 ms timeout
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received();
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(ACCEPTED));
        }, 50);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const client = new ServiceClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300 });
    closing.push(() => client.close());

    const call = client.issueInvoice({ id: 1001, apiKey: 'k-frozen' }, {
      SeriePrefix: 'SETP',
      SerieNumber: '990000001',
    } as InvoiceRequest);
    await arrived;
    freeze(800); // past the deadline; the server's answer timer expired first
    const response = await call;
    expect(response.outcome.kind).toBe('accepted');
    expect(response.httpStatus).toBe(200);
  });
});
