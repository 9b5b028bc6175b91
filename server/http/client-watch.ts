// Watches a uWS response for the client going away (uWS requires onAborted on every async reply).
import type { HttpResponse } from 'uWebSockets.js';
import type { ClientWatch } from './body.ts';

export class ClientGone extends Error {}

/** onGone calls its listener (with a ClientGone) when the client goes away, at once if it has. */
export interface Client extends ClientWatch {
  readonly aborted: boolean;
  /** Aborted when the client goes away; made only when something waits on it (most requests never do). */
  readonly signal: AbortSignal;
}

// Listeners in a plain array: an AbortController and its listener per request cost more (profiled).
// No named closures on a per-request path: tsx (esbuild keepNames) gives each one its name with an
// Object.defineProperty call when it is made; methods and anonymous callbacks are left alone.
export function watchClient(res: HttpResponse): Client {
  let gone = false;
  let listeners: ((reason: unknown) => void)[] | undefined;
  let controller: AbortController | undefined;
  res.onAborted(() => {
    gone = true;
    if (listeners) for (const listener of listeners) listener(new ClientGone());
  });
  return {
    get aborted() {
      return gone;
    },
    onGone(listener) {
      if (gone) listener(new ClientGone());
      else (listeners ??= []).push(listener);
    },
    get signal() {
      if (!controller) {
        controller = new AbortController();
        this.onGone(controller.abort.bind(controller));
      }
      return controller.signal;
    },
  };
}
