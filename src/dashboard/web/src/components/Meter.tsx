// A labelled horizontal bar for "used of limit" figures.

import { formatInt } from '../format';

export function Meter({ label, used, limit }: { label: string; used: number; limit: number }) {
  const ratio = limit > 0 ? Math.min(1, used / limit) : 0;
  const level = ratio >= 0.9 ? 'high' : ratio >= 0.7 ? 'mid' : 'low';
  return (
    <div class="meter">
      <div class="meter-head">
        <span>{label}</span>
        <span class="muted">
          {formatInt(used)} of {formatInt(limit)} ({Math.round(ratio * 100)}%)
        </span>
      </div>
      <div
        class="meter-track"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
      >
        <div class={`meter-fill ${level}`} style={{ width: `${(ratio * 100).toFixed(2)}%` }} />
      </div>
    </div>
  );
}
