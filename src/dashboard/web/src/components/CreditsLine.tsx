// What a playground request cost, from the X-Credits-Used and X-Credits-Remaining headers.

import type { Credits } from '../api';
import { formatInt } from '../format';

export function CreditsLine({ credits, extra }: { credits: Credits; extra?: string | undefined }) {
  return (
    <p class="credits-line" data-testid="credits-used">
      {credits.used !== null && (
        <span>
          <strong>{formatInt(credits.used)}</strong> credits used
        </span>
      )}
      {credits.remaining !== null && <span>{formatInt(credits.remaining)} remaining</span>}
      {extra && <span>{extra}</span>}
    </p>
  );
}
