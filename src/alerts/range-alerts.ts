/**
 * Alerts about numbering ranges, per company and prefix, from each update of the range watch: every
 * valid range of the prefix taken together is low on numbers (`range-low`), has none left
 * (`range-exhausted`), ends within `daysLeftBelow` days (`range-expiring`), or every range of the
 * prefix has expired (`range-expired`). An episode ends (one `info` alert) when a new range or a
 * corrected one lifts the condition; a graver one taking its place ends it silently.
 */
import type { AlertsConfig } from '../config/alerts-schema.js';
import { excerpt } from '../policy/excerpt.js';
import { prefixSummaries, type PrefixSummary } from '../ranges/range-math.js';
import type { RangeState } from '../ranges/range-state.js';
import type { AlertKind } from './alert-record.js';
import type { Alerter } from './alerter.js';

type RangeKind = Extract<AlertKind, `range-${string}`>;

export class RangeAlerts {
  constructor(
    private readonly alerter: Alerter,
    private readonly config: () => AlertsConfig['ranges'],
  ) {}

  update(company: string, states: readonly RangeState[]): void {
    const { numbersLeftBelow, daysLeftBelow } = this.config();
    const seen = new Set<string>();
    for (const s of prefixSummaries(states)) {
      seen.add(s.prefix);
      const expired = s.valid === 0;
      const exhausted = !expired && s.numbersLeft === 0;
      const low = !expired && !exhausted && s.numbersLeft < numbersLeftBelow;
      const expiring =
        !expired && !exhausted && s.daysLeft !== undefined && s.daysLeft < daysLeftBelow;
      const graver = expired || exhausted;
      this.toggle(s, 'range-expired', expired, false);
      this.toggle(s, 'range-exhausted', exhausted, expired);
      this.toggle(s, 'range-low', low, graver);
      this.toggle(s, 'range-expiring', expiring, graver);
    }
    // a prefix E10 no longer lists: its episodes end without a word (nothing to say about it any more)
    for (const episode of this.alerter.openEpisodes('range-')) {
      const [, alias, ...rest] = episode.split(':');
      if (alias === company && !seen.has(rest.join(':'))) this.alerter.end(episode);
    }
  }

  private toggle(s: PrefixSummary, kind: RangeKind, now: boolean, silentEnd: boolean): void {
    const episode = `${kind}:${s.company}:${s.prefix}`;
    const details = {
      prefix: excerpt(s.prefix, 40),
      numbersLeft: s.numbersLeft,
      daysLeft: s.daysLeft ?? null,
      validRanges: s.valid,
    };
    if (now) {
      this.alerter.raise(episode, {
        kind,
        severity: kind === 'range-low' || kind === 'range-expiring' ? 'warning' : 'error',
        company: s.company,
        message: this.message(kind, s),
        details,
      });
    } else if (this.alerter.isOpen(episode)) {
      this.alerter.end(
        episode,
        silentEnd
          ? undefined
          : {
              kind,
              company: s.company,
              details,
              message:
                `numbering prefix ${excerpt(s.prefix, 40)} of company ${s.company} is fine again: ${s.numbersLeft} numbers left` +
                `${s.daysLeft === undefined ? '' : `, ${s.daysLeft} days left`}`,
            },
      );
    }
  }

  private message(kind: RangeKind, s: PrefixSummary): string {
    // the prefix is the service's text: bounded, one line
    const who = `numbering prefix ${excerpt(s.prefix, 40)} of company ${s.company}`;
    switch (kind) {
      case 'range-expired':
        return `${who}: every range has expired (the last ${s.expiredDaysAgo ?? 0} days ago); documents with it will be rejected. Register a new resolution (edoc-bridge ranges create)`;
      case 'range-exhausted':
        return `${who}: no numbers left in its valid ranges; documents with it will be rejected. Register a new resolution (edoc-bridge ranges create)`;
      case 'range-low':
        return `${who}: only ${s.numbersLeft} numbers left in its valid ranges (alert below ${this.config().numbersLeftBelow})`;
      default:
        return `${who}: its valid ranges end in ${s.daysLeft ?? 0} days (alert below ${this.config().daysLeftBelow})`;
    }
  }
}
