// Usage: plan and period, balances, character quota, request counts, rate limits, and the daily
// chart of credits and requests split by TTS and STT, for live or test keys.

import { useEffect, useState } from 'preact/hooks';
import { dashboardApi, type DailyUsage, type KeyMode, type Usage } from '../api';
import { DailyChart, type Metric } from '../components/DailyChart';
import { ErrorNotice } from '../components/ErrorNotice';
import { Meter } from '../components/Meter';
import { ModeSwitch } from '../components/ModeSwitch';
import { formatDate, formatInt, formatRange } from '../format';

const DAY_MS = 86_400_000;

/**
 * Every day of the period, zero where nothing was used, so that the chart's time axis is the
 * whole period (the days to come show how much of it is left) whatever days the server reported.
 */
export function fillPeriod(daily: DailyUsage[], start: string, end: string): DailyUsage[] {
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const from = Date.parse(`${start.slice(0, 10)}T00:00:00Z`);
  const to = Date.parse(end) - 1;
  if (!Number.isFinite(from) || !Number.isFinite(to) || to < from || (to - from) / DAY_MS > 100) return daily;
  const days: DailyUsage[] = [];
  for (let t = from; t <= to; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push(byDay.get(day) ?? { day, tts: { requests: 0, credits: 0 }, stt: { requests: 0, credits: 0 } });
  }
  // Days the server reported outside that window (a clock skew) are kept rather than dropped.
  for (const d of daily) if (!days.some((x) => x.day === d.day)) days.push(d);
  return days.sort((a, b) => a.day.localeCompare(b.day));
}

function Stat({ label, value, hint, wide = false }: { label: string; value: string; hint?: string; wide?: boolean }) {
  return (
    <div class={wide ? 'stat wide' : 'stat'}>
      <dt>{label}</dt>
      <dd>
        <span class="stat-value">{value}</span>
        {hint ? <span class="muted small">{hint}</span> : null}
      </dd>
    </div>
  );
}

export function UsagePage() {
  const [mode, setMode] = useState<KeyMode>('live');
  const [metric, setMetric] = useState<Metric>('credits');
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let current = true;
    setError(null);
    dashboardApi.usage(mode).then(
      (u) => current && setUsage(u),
      (err: unknown) => current && setError(err),
    );
    return () => {
      current = false;
    };
  }, [mode]);

  const days = usage ? fillPeriod(usage.daily, usage.period.start, usage.period.end) : [];

  return (
    <>
      <header class="page-head row wrap between">
        <div>
          <h1>Usage</h1>
          <p class="muted">This billing period, for {mode === 'live' ? 'live' : 'test'} keys.</p>
        </div>
        <ModeSwitch value={mode} onChange={setMode} label="Show usage of" />
      </header>
      <ErrorNotice error={error} />
      {!usage && !error && <p class="muted">Loading…</p>}
      {usage && (
        <>
          <section class="card" aria-labelledby="plan-title">
            <h2 id="plan-title" class="visually-hidden">
              Plan and balances
            </h2>
            <dl class="stats">
              <Stat label="Plan" value={usage.plan} hint={`renews ${formatDate(usage.period.renewal_date)}`} />
              <Stat wide label="Period" value={formatRange(usage.period.start, usage.period.end)} />
              <Stat label="Live credits" value={formatInt(usage.credits.live)} hint="remaining" />
              <Stat label="Test credits" value={formatInt(usage.credits.test)} hint="remaining" />
              <Stat label="Credits used" value={formatInt(usage.credits_used_this_period)} hint="this period" />
              <Stat label="Requests today" value={formatInt(usage.requests.today)} />
              <Stat label="Requests this month" value={formatInt(usage.requests.this_month)} />
            </dl>
            <Meter label="Characters used this period" used={usage.characters.used} limit={usage.characters.limit} />
            <p class="muted small">{formatInt(usage.characters.remaining)} characters remaining until the period renews.</p>
          </section>

          <section class="card" aria-labelledby="chart-title">
            <div class="row wrap between">
              <h2 id="chart-title">Daily activity</h2>
              <div class="segmented compact" role="group" aria-label="Chart shows">
                {(['credits', 'requests'] as const).map((m) => (
                  <button
                    key={m}
                    type="button"
                    class={metric === m ? 'selected' : ''}
                    aria-pressed={metric === m}
                    onClick={() => setMetric(m)}
                  >
                    {m === 'credits' ? 'Credits' : 'Requests'}
                  </button>
                ))}
              </div>
            </div>
            <DailyChart days={days} metric={metric} title={metric === 'credits' ? 'Credits per day' : 'Requests per day'} />
          </section>

          <section class="card" aria-labelledby="limits-title">
            <h2 id="limits-title">Rate limits</h2>
            <dl class="stats">
              <Stat label="Per minute" value={formatInt(usage.rate_limits.requests_per_minute)} hint="requests" />
              <Stat label="Per hour" value={formatInt(usage.rate_limits.requests_per_hour)} hint="requests" />
              <Stat label="At once" value={formatInt(usage.rate_limits.concurrent_requests)} hint="concurrent requests" />
            </dl>
          </section>
        </>
      )}
    </>
  );
}
