/**
 * The write transactions of one turn of the event loop, committed together: each one is a savepoint
 * inside one BEGIN IMMEDIATE … COMMIT (one fsync for all of them), and each caller's promise resolves
 * only after that COMMIT, so what a caller does next (send a request, write a report) still follows
 * the commit of what it stands for. A member that fails is rolled back alone; a COMMIT that fails
 * fails every member. Statements outside a transaction run inside the open group and wait for its
 * COMMIT too.
 */
export class GroupCommit {
  readonly committed: Promise<void>;
  done!: () => void;
  fail!: (err: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.done = resolve;
      this.fail = reject;
    });
    this.committed.catch(() => undefined); // each member sees the rejection; none is left unhandled
  }
}
