// Who spoke which span, given one vector per span: average-linkage agglomerative clustering with
// anchors (known speakers' reference vectors), numbered by first appearance. Shared by the built-in
// diarization (src/stt/diarize.ts: standardized spectral features, root-mean-square distance) and
// the neural one (src/engines/sherpa/speaker-host.ts: speaker embeddings, cosine distance), so both
// label spans and match known speakers by the same rules (decision #91).

export type Distance = (a: number[], b: number[]) => number;

/** Root mean square of the coordinate differences (the built-in features' scale). */
export const rmsDistance: Distance = (a, b) => {
  let acc = 0;
  for (let i = 0; i < a.length; i++) acc += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(acc / a.length);
};

/** 1 - cosine similarity: 0 for the same direction, 1 for orthogonal, 2 for opposite (embeddings). */
export const cosineDistance: Distance = (a, b) => {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa > 0 && bb > 0 ? 1 - ab / Math.sqrt(aa * bb) : 1;
};

/**
 * Average-linkage merging of `z` until the closest clusters are farther apart than `threshold`;
 * two clusters holding different anchors (`anchor[i]` >= 0) never merge.
 */
function agglomerate(z: number[][], anchor: number[], threshold: number, distance: Distance): number[][] {
  let clusters = z.map((_, k) => [k]);
  const avgDist = (a: number[], b: number[]) => {
    let acc = 0;
    for (const x of a) for (const y of b) acc += distance(z[x]!, z[y]!);
    return acc / (a.length * b.length);
  };
  const anchorOf = (c: number[]) => c.find((k) => anchor[k]! >= 0);
  while (clusters.length > 1) {
    let best = Infinity;
    let pair: [number, number] = [0, 1];
    for (let a = 0; a < clusters.length; a++) {
      const anchorA = anchorOf(clusters[a]!);
      for (let b = a + 1; b < clusters.length; b++) {
        const anchorB = anchorOf(clusters[b]!);
        if (anchorA !== undefined && anchorB !== undefined && anchor[anchorA] !== anchor[anchorB]) continue;
        const d = avgDist(clusters[a]!, clusters[b]!);
        if (d < best) {
          best = d;
          pair = [a, b];
        }
      }
    }
    if (best > threshold) break;
    clusters[pair[0]] = [...clusters[pair[0]]!, ...clusters[pair[1]]!];
    clusters = clusters.filter((_, k) => k !== pair[1]);
  }
  return clusters;
}

/**
 * Labels 0, 1, ... by first appearance for the spans (a null vector joins the speaker before it),
 * and for each label the known speaker (index into the references) it is, or -1. `references` are
 * vectors of pieces of known speakers' voices, `refOf` which speaker each is.
 */
export function labelSpans(
  vectors: Array<number[] | null>,
  references: number[][],
  refOf: number[],
  threshold: number,
  distance: Distance,
): { labels: number[]; known: number[] } {
  const valid = vectors.map((f, i) => ({ f, i })).filter((x): x is { f: number[]; i: number } => x.f !== null);
  if (valid.length === 0) return { labels: vectors.map(() => 0), known: vectors.length ? [-1] : [] };
  const z = [...valid.map(({ f }) => f), ...references];
  const anchor = [...valid.map(() => -1), ...refOf];
  const clusters = agglomerate(z, anchor, threshold, distance);
  const clusterOf = new Map<number, number>();
  clusters.forEach((members, c) => members.forEach((k) => k < valid.length && clusterOf.set(valid[k]!.i, c)));
  const order = new Map<number, number>();
  const known: number[] = [];
  const labels: number[] = [];
  let last = 0;
  for (let i = 0; i < vectors.length; i++) {
    const c = clusterOf.get(i);
    if (c === undefined) {
      labels.push(last);
      continue;
    }
    if (!order.has(c)) {
      order.set(c, order.size);
      const a = clusters[c]!.find((k) => anchor[k]! >= 0);
      known.push(a === undefined ? -1 : anchor[a]!);
    }
    last = order.get(c)!;
    labels.push(last);
  }
  return { labels, known };
}

/** A known speaker's sample is described as spans are: pieces of 2-6 s (a 10 s sample gives three). */
export function referencePieces(seconds: number): Array<[number, number]> {
  const n = Math.max(1, Math.round(seconds / 3.5));
  return Array.from({ length: n }, (_, k) => [(k * seconds) / n, ((k + 1) * seconds) / n]);
}
