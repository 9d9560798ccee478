/**
 * One line at the bottom of a terminal (the progress bar of `submit`), redrawn
 * in place on stderr, with every other line the command prints (its own and
 * the log's console lines, on stdout or stderr) written above it: the line is
 * erased, the text written, the line drawn again. Off a terminal there is no
 * status line and text passes straight through.
 */
import type { LineSink } from '../log/logger.js';

const ERASE_LINE = '\r\u001b[2K';

export class StatusLine {
  private shown: string | undefined;

  constructor(private readonly terminal: LineSink) {}

  /** Draws `text` in place of the current status line; `final` leaves it on screen, ended by a newline. */
  update(text: string, final = false): void {
    this.terminal.write(`${ERASE_LINE}${text}${final ? '\n' : ''}`);
    this.shown = final ? undefined : text;
  }

  /** Writes `text` (whole lines) to `sink` above the status line. */
  above(sink: LineSink, text: string): void {
    if (this.shown === undefined) {
      sink.write(text);
      return;
    }
    this.terminal.write(ERASE_LINE);
    sink.write(text);
    this.terminal.write(this.shown);
  }

  /** Ends a status line still drawn (an interrupted command): it stays as it was, and later text starts below it. */
  end(): void {
    if (this.shown === undefined) return;
    this.terminal.write('\n');
    this.shown = undefined;
  }
}
