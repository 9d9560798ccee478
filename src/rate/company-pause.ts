/**
 * A company's pause: the service refused its credentials (HTTP 401) on one of its calls, so none of
 * its work (its submissions, its received-documents pull) starts again until the configuration is
 * reloaded (a new key) or the process restarts. One per company, owned by its run (company/): the
 * sender, the pull and the range reads all read and set the same one, so a 401 on any pauses all of
 * them and a reload resumes them. A sender or a pull made alone (tests, `edoc-bridge received`) has one of its own.
 */

/** Which of the company's calls the 401 answered. */
export type PausedBy = 'submit' | 'received' | 'ranges';

export interface PauseState {
  /** When it was paused (epoch ms). */
  since: number;
  /** The service's reason (never a key, never a body). */
  reason: string;
  by: PausedBy;
}

export class CompanyPause {
  private state: PauseState | undefined;
  private readonly listeners = new Set<(state: PauseState | undefined) => void>();

  /** The pause in force, or undefined while the company runs. */
  get paused(): PauseState | undefined {
    return this.state;
  }

  /** A 401: pauses the company; true when this call paused it (the caller says so, once), false when it was already. */
  pause(reason: string, by: PausedBy, now = Date.now()): boolean {
    if (this.state !== undefined) return false;
    this.state = { since: now, reason, by };
    this.tell();
    return true;
  }

  /** A reloaded configuration: the pause is lifted; true when it was paused. */
  resume(): boolean {
    if (this.state === undefined) return false;
    this.state = undefined;
    this.tell();
    return true;
  }

  /** Told of each pause and resume; returns the unsubscribe. */
  onChange(listener: (state: PauseState | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(): void {
    for (const listener of [...this.listeners]) listener(this.state);
  }
}
