// Monthly billing periods anchored on the day of month the account was created (clamped to the
// month's last day), in UTC.

export interface Period {
  start: Date;
  end: Date;
}

function anniversary(year: number, month: number, anchor: Date): Date {
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds()),
  );
}

export function currentPeriod(anchor: Date, now: Date = new Date()): Period {
  let y = now.getUTCFullYear();
  let m = now.getUTCMonth();
  let start = anniversary(y, m, anchor);
  if (start > now) {
    m -= 1;
    if (m < 0) {
      m = 11;
      y -= 1;
    }
    start = anniversary(y, m, anchor);
  }
  const nm = m === 11 ? 0 : m + 1;
  const ny = m === 11 ? y + 1 : y;
  return { start, end: anniversary(ny, nm, anchor) };
}

export function startOfUtcDay(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
