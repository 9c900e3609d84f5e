// An error from the service, with its resolution when the service gave one.

import { ApiError } from '../api';

export function errorText(err: unknown): { message: string; resolution?: string | undefined; code?: string } {
  if (err instanceof ApiError) {
    const wait = err.retryAfter ? ` Try again in ${err.retryAfter} s.` : '';
    return { message: err.message + wait, resolution: err.resolution, code: err.code };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const { message, resolution, code } = errorText(error);
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>{message}</strong>
        {code && code !== 'NETWORK' ? <span class="code"> {code}</span> : null}
      </p>
      {resolution ? <p class="muted">{resolution}</p> : null}
    </div>
  );
}
