/**
 * An undici interceptor that tells the caller the moment its request is handed to the socket:
 * undici calls `onRequestStart` synchronously right before it writes the request line (unless
 * the request was aborted by then). The rate window counts that moment, not the one its slot was
 * taken (see `SlidingWindow.tryReserve`).
 * The callback rides in the dispatch options under `SENT_HOOK`; requests without it pass untouched.
 */
import type { Dispatcher } from 'undici';

export const SENT_HOOK = 'edocOnSent';

type Handler = Dispatcher.DispatchHandler;

type Args<K extends keyof Handler> = Parameters<NonNullable<Handler[K]>>;

class SentHandler implements Handler {
  constructor(private readonly inner: Handler, private readonly onSent: () => void) {}

  onRequestStart(...args: Args<'onRequestStart'>): void {
    this.inner.onRequestStart?.(...args);
    // The inner handler aborts here when the caller's signal already fired: then nothing is written.
    if (!args[0].aborted) this.onSent();
  }

  onRequestUpgrade(...args: Args<'onRequestUpgrade'>): void {
    this.inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Args<'onResponseStart'>): void {
    this.inner.onResponseStart?.(...args);
  }

  onResponseData(...args: Args<'onResponseData'>): void {
    this.inner.onResponseData?.(...args);
  }

  onResponseEnd(...args: Args<'onResponseEnd'>): void {
    this.inner.onResponseEnd?.(...args);
  }

  onResponseError(...args: Args<'onResponseError'>): void {
    this.inner.onResponseError?.(...args);
  }
}

export function sentHook(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (opts, handler) => {
    const onSent = (opts as unknown as Record<string, unknown>)[SENT_HOOK];
    return dispatch(opts, typeof onSent === 'function' ? new SentHandler(handler, onSent as () => void) : handler);
  };
}
