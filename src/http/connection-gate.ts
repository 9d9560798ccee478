/**
 * Who gets a connection to the operator listener when connections run short. Each is a file
 * descriptor of the daemon, so their number is bounded; but a bound alone lets idle connections
 * (opened and never sent a request, or kept alive after one) take every place, and then a liveness
 * probe fails and restarts a healthy daemon. So:
 *
 * - one address holds at most `perAddress` connections;
 * - when a new connection finds no place (its address's, or the listener's), the oldest idle
 *   connection gives up its place: a probe that sends its request at once always gets in, a
 *   connection that waits is the one that goes;
 * - past `maxConnections`, when none is idle (every place holds a request being received, e.g.
 *   slow bodies), `reserve` more are let in for health and readiness only: any other request on
 *   them is answered 503.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionGateOptions {
  /** @defaultValue 256 */
  maxConnections?: number;
  /** @defaultValue 32 */
  perAddress?: number;
  /** @defaultValue 16 */
  reserve?: number;
}

export class ConnectionGate {
  private readonly open = new Set<Socket>();
  /** Connections without a request in progress; iteration order is the oldest idle first. */
  private readonly idle = new Set<Socket>();
  private readonly byAddress = new Map<string, Set<Socket>>();
  private readonly reserved = new WeakSet<Socket>();
  private readonly maxConnections: number;
  private readonly perAddress: number;
  private readonly reserve: number;

  constructor(options: ConnectionGateOptions = {}) {
    this.maxConnections = options.maxConnections ?? 256;
    this.perAddress = options.perAddress ?? 32;
    this.reserve = options.reserve ?? 16;
  }

  attach(server: Server): void {
    // The gate decides; Node's own bound is a backstop well above it: Node counts a connection the gate
    // closed until its close event, so a burst of newcomers each closing an idle one briefly counts double.
    server.maxConnections = 2 * (this.maxConnections + this.reserve);
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req, res) => {
      const { socket } = req;
      this.idle.delete(socket);
      res.once('close', () => {
        if (this.open.has(socket) && !socket.destroyed) this.idle.add(socket);
      });
    });
  }

  /** Whether this connection was let in for health and readiness only. */
  healthOnly(socket: Socket): boolean {
    return this.reserved.has(socket);
  }

  get size(): number {
    return this.open.size;
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const mine = this.byAddress.get(address) ?? new Set<Socket>();
    if (mine.size >= this.perAddress && !this.evictIdle(mine)) {
      socket.destroy();
      return;
    }
    if (this.open.size >= this.maxConnections && !this.evictIdle()) {
      if (this.open.size >= this.maxConnections + this.reserve) {
        socket.destroy();
        return;
      }
      this.reserved.add(socket);
    }
    mine.add(socket);
    this.byAddress.set(address, mine);
    this.open.add(socket);
    this.idle.add(socket);
    socket.once('close', () => this.forget(socket, address));
  }

  private evictIdle(among?: Set<Socket>): boolean {
    for (const socket of this.idle) {
      if (among !== undefined && !among.has(socket)) continue;
      this.forget(socket, socket.remoteAddress ?? 'unknown');
      socket.destroy();
      return true;
    }
    return false;
  }

  private forget(socket: Socket, address: string): void {
    this.open.delete(socket);
    this.idle.delete(socket);
    const mine = this.byAddress.get(address);
    mine?.delete(socket);
    if (mine !== undefined && mine.size === 0) this.byAddress.delete(address);
  }
}
