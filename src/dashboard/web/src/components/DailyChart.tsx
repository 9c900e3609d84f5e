// Daily credits or requests as stacked bars (TTS below, STT above), drawn as SVG at the
// container's real pixel width so that text stays crisp and readable on a phone.
// A table of the same numbers follows for screen readers and for exact values.

import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DailyUsage } from '../api';
import { formatCompact, formatDay, formatInt } from '../format';

export type Metric = 'credits' | 'requests';

const HEIGHT = 240;
const M = { top: 14, right: 10, bottom: 28, left: 46 };

/** A round axis maximum at or above `max`, and its step, for about four grid lines. */
function niceScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 4, step: 1 };
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const rounded = step < 1 ? 1 : step;
  return { top: Math.ceil(max / rounded) * rounded, step: rounded };
}

function useWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function DailyChart({ days, metric, title }: { days: DailyUsage[]; metric: Metric; title: string }) {
  const [box, width] = useWidth<HTMLDivElement>();
  const totals = days.map((d) => d.tts[metric] + d.stt[metric]);
  const { top, step } = niceScale(Math.max(0, ...totals));
  const plotW = Math.max(0, width - M.left - M.right);
  const plotH = HEIGHT - M.top - M.bottom;
  const slot = days.length ? plotW / days.length : 0;
  const barW = Math.max(1, Math.min(28, slot * 0.68));
  const y = (v: number) => M.top + plotH - (v / top) * plotH;
  // Label every nth day so that labels (about 44 px wide) never overlap.
  const every = Math.max(1, Math.ceil(44 / Math.max(1, slot)));
  const ticks: number[] = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  const sum = (k: 'tts' | 'stt') => days.reduce((a, d) => a + d[k][metric], 0);

  return (
    <figure class="chart">
      <figcaption>
        <span class="chart-title">{title}</span>
        <span class="legend">
          <span class="swatch tts" aria-hidden="true" /> TTS {formatInt(sum('tts'))}
          <span class="swatch stt" aria-hidden="true" /> STT {formatInt(sum('stt'))}
        </span>
      </figcaption>
      <div class="chart-box" ref={box}>
        {width > 0 && (
          <svg
            width={width}
            height={HEIGHT}
            viewBox={`0 0 ${width} ${HEIGHT}`}
            role="img"
            aria-label={`${title}: stacked bars per day, TTS and STT`}
            data-chart={metric}
          >
            {ticks.map((t) => (
              <g key={t}>
                <line class="grid" x1={M.left} x2={width - M.right} y1={y(t)} y2={y(t)} />
                <text class="axis" x={M.left - 6} y={y(t)} dy="0.32em" text-anchor="end">
                  {formatCompact(t)}
                </text>
              </g>
            ))}
            {days.map((d, i) => {
              const x = M.left + i * slot + (slot - barW) / 2;
              const tts = d.tts[metric];
              const stt = d.stt[metric];
              return (
                <g key={d.day} class="bar">
                  <title>{`${formatDay(d.day)}: TTS ${formatInt(tts)}, STT ${formatInt(stt)} ${metric}`}</title>
                  {/* A transparent full-height hit area, so thin or empty days still show their tooltip. */}
                  <rect class="hit" x={M.left + i * slot} y={M.top} width={slot} height={plotH} />
                  {tts > 0 && <rect class="tts" x={x} y={y(tts)} width={barW} height={y(0) - y(tts)} rx={Math.min(3, barW / 4)} />}
                  {stt > 0 && (
                    <rect class="stt" x={x} y={y(tts + stt)} width={barW} height={y(tts) - y(tts + stt)} rx={Math.min(3, barW / 4)} />
                  )}
                  {i % every === 0 && (
                    <text class="axis" x={M.left + i * slot + slot / 2} y={HEIGHT - 8} text-anchor="middle">
                      {formatDay(d.day)}
                    </text>
                  )}
                </g>
              );
            })}
            <line class="baseline" x1={M.left} x2={width - M.right} y1={y(0)} y2={y(0)} />
            {totals.every((v) => v === 0) && (
              <text class="empty-note" x={M.left + plotW / 2} y={M.top + plotH / 2} text-anchor="middle">
                No {metric} in this period yet
              </text>
            )}
          </svg>
        )}
      </div>
      <details class="chart-table">
        <summary>Show the numbers</summary>
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">{title} per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">TTS</th>
                <th scope="col">STT</th>
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d, i) => (
                <tr key={d.day}>
                  <th scope="row">{formatDay(d.day)}</th>
                  <td>{formatInt(d.tts[metric])}</td>
                  <td>{formatInt(d.stt[metric])}</td>
                  <td>{formatInt(totals[i] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
