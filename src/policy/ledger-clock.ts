/**
 * The clock of every time the ledger stores (epoch milliseconds: a document's next attempt, a file's
 * start and end, a verdict's time, an archive move). With one process it is this machine's clock. In a
 * cluster the nodes compare each other's times (a document read by one node is due for its owner), so it
 * is the database server's clock as this node last measured it: the heartbeat reads the server's time and
 * sets the offset (cluster/clock-offset.ts). A node whose own clock is hours off then still writes and
 * compares times the others agree with. One offset per process: a process is one node.
 */
let offsetMs = 0;

/** Now, by the ledger's clock. */
export function ledgerNow(): number {
  return Date.now() + offsetMs;
}

/** The database's clock minus this machine's, as last measured (cluster mode; 0 otherwise). */
export function ledgerClockOffset(): number {
  return offsetMs;
}

export function setLedgerClockOffset(ms: number): void {
  offsetMs = Number.isFinite(ms) ? Math.round(ms) : 0;
}
