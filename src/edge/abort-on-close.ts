// An abort signal for the work of one HTTP response, shared by every HTTP edge (native, OpenAI,
// Deepgram): the client going away stops the synthesis or recognition it asked for.

import { setMaxListeners } from 'node:events';

/** An abort signal that fires when the client goes away before the response was sent. */
export function abortOnClose(res: import('node:http').ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Every chunk task of a long text listens on it (a few dozen at most): no leak.
  setMaxListeners(200, controller.signal);
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client went away'));
  });
  return controller.signal;
}
