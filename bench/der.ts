// Diarization error rate, as NIST's md-eval scores it: time in 10 ms frames, a collar around every
// reference boundary left unscored, the hypothesis's speakers mapped one-to-one onto the
// reference's to maximize the time they share, and the error split into missed speech, false alarm
// and speaker confusion, each over the scored reference speech time (overlap counted per speaker).

export interface Turn {
  start: number;
  end: number;
  speaker: string;
}

export interface DerResult {
  /** Scored reference speaker-time, seconds. */
  total: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  der: number;
}

const STEP = 0.01;

/** Per frame: the set of speakers talking (indices into `names`). */
function frames(turns: Turn[], names: string[], n: number): number[][] {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const t of turns) {
    const s = names.indexOf(t.speaker);
    for (let f = Math.max(0, Math.round(t.start / STEP)); f < Math.min(n, Math.round(t.end / STEP)); f++)
      if (!out[f]!.includes(s)) out[f]!.push(s);
  }
  return out;
}

/** The one-to-one mapping of hypothesis onto reference speakers sharing the most frames (exhaustive: a few speakers). */
function bestMapping(shared: number[][]): Map<number, number> {
  const nh = shared.length;
  const nr = shared[0]?.length ?? 0;
  let best = -1;
  let bestMap = new Map<number, number>();
  const walk = (h: number, used: Set<number>, map: Map<number, number>, score: number) => {
    if (h === nh) {
      if (score > best) {
        best = score;
        bestMap = new Map(map);
      }
      return;
    }
    walk(h + 1, used, map, score);
    for (let r = 0; r < nr; r++) {
      if (used.has(r)) continue;
      used.add(r);
      map.set(h, r);
      walk(h + 1, used, map, score + shared[h]![r]!);
      map.delete(h);
      used.delete(r);
    }
  };
  walk(0, new Set(), new Map(), 0);
  return bestMap;
}

export function der(reference: Turn[], hypothesis: Turn[], collar = 0.25): DerResult {
  const end = Math.max(...reference.map((t) => t.end), ...hypothesis.map((t) => t.end), 0);
  const n = Math.ceil(end / STEP) + 1;
  const refNames = [...new Set(reference.map((t) => t.speaker))];
  const hypNames = [...new Set(hypothesis.map((t) => t.speaker))];
  const ref = frames(reference, refNames, n);
  const hyp = frames(hypothesis, hypNames, n);
  const scored = new Array<boolean>(n).fill(true);
  const c = Math.round(collar / STEP);
  for (const t of reference) {
    for (const edge of [t.start, t.end]) {
      const f = Math.round(edge / STEP);
      for (let k = Math.max(0, f - c); k < Math.min(n, f + c); k++) scored[k] = false;
    }
  }
  const shared = hypNames.map(() => refNames.map(() => 0));
  for (let f = 0; f < n; f++) if (scored[f]) for (const h of hyp[f]!) for (const r of ref[f]!) shared[h]![r]!++;
  const map = bestMapping(shared);
  let total = 0;
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  for (let f = 0; f < n; f++) {
    if (!scored[f]) continue;
    const nr = ref[f]!.length;
    const nh = hyp[f]!.length;
    const correct = hyp[f]!.filter((h) => map.has(h) && ref[f]!.includes(map.get(h)!)).length;
    total += nr;
    missed += Math.max(0, nr - nh);
    falseAlarm += Math.max(0, nh - nr);
    confusion += Math.min(nr, nh) - correct;
  }
  const s = (x: number) => x * STEP;
  return {
    total: s(total),
    missed: s(missed),
    falseAlarm: s(falseAlarm),
    confusion: s(confusion),
    der: total ? (missed + falseAlarm + confusion) / total : 0,
  };
}

/** Results summed over conversations (DER of the pooled time, as md-eval reports a set). */
export function pooled(results: DerResult[]): DerResult {
  const sum = (k: keyof DerResult) => results.reduce((a, r) => a + r[k], 0);
  const total = sum('total');
  return {
    total,
    missed: sum('missed'),
    falseAlarm: sum('falseAlarm'),
    confusion: sum('confusion'),
    der: total ? (sum('missed') + sum('falseAlarm') + sum('confusion')) / total : 0,
  };
}
