/**
 * A real alert webhook receiver for tests: node:http on 127.0.0.1 (a free port, or a fixed one to come
 * back on the same address), keeping every POST it took (body parsed, headers), answering `status`
 * (200 unless a test makes it fail). `close()` then `listen()` again models a receiver that was down.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedMessage {
  body: Record<string, unknown>;
  text: string;
  headers: IncomingHttpHeaders;
  url: string;
}

export class WebhookReceiver {
  readonly messages: ReceivedMessage[] = [];
  /** Requests answered with something else than 2xx (retries seen). */
  refusedCount = 0;
  status = 200;
  private server: Server | undefined;
  port = 0;

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.listen(port);
    return receiver;
  }

  /** The URL to configure (`path` may carry a token: `/hook?token=…`). */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async listen(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (this.status >= 200 && this.status < 300) {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            /* kept as text */
          }
          this.messages.push({ body, text, headers: req.headers, url: req.url ?? '' });
        } else this.refusedCount += 1;
        res.writeHead(this.status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** The messages of one alert kind. */
  of(kind: string): ReceivedMessage[] {
    return this.messages.filter((m) => m.body.kind === kind);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
