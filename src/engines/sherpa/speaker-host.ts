// The speaker models' thread (decision #91): sherpa-onnx's speaker embedding extractor, and its
// pyannote segmentation when one is installed, loaded once here and run one request at a time, never
// on the event loop. A request is the recording, Parla's diarization spans (the recognizer's words
// cut at pauses, src/stt/transcript.ts) and any known speakers' samples; the answer is a speaker
// label per span, numbered by first appearance, and which known speaker each label is.
// - Embeddings only: each span (and each piece of a known speaker's sample) becomes one embedding;
//   the spans are clustered by cosine distance with the references as anchors, by the same rules
//   as the built-in path (src/audio/speaker-clusters.ts).
// - With segmentation: sherpa-onnx's OfflineSpeakerDiarization says who speaks when over the whole
//   recording (pyannote's frames, overlaps included, its own clustering of embeddings); each span
//   takes the speaker it overlaps most. A known speaker names the cluster whose spans' mean
//   embedding is nearest to its sample's, within the threshold, one cluster per speaker.

import { parentPort, workerData } from 'node:worker_threads';
import { cosineDistance, labelSpans, referencePieces } from '../../audio/speaker-clusters.js';
import {
  loadSherpa,
  speakerDiarizationConfig,
  speakerEmbeddingConfig,
  type OfflineSpeakerDiarization,
  type SpeakerEmbeddingExtractor,
} from '../../models/sherpa-config.js';

export interface SpeakerSetup {
  embedding: string;
  segmentation: string | null;
  threshold: number;
}

export interface SpeakerRequest {
  id: number;
  op: 'diarize';
  pcm: Int16Array;
  spans: Array<{ start: number; end: number }>;
  references: Int16Array[];
}

export interface SpeakerAnswer {
  labels: number[];
  known: number[];
  /** "segmentation" when pyannote's frames placed the speakers, else "embeddings". */
  method: 'segmentation' | 'embeddings';
}

const RATE = 16000;
/** A span shorter than this says too little to embed; it joins the speaker before it. */
const MIN_EMBED_SECONDS = 0.4;

const toFloat = (pcm: Int16Array, from = 0, to = pcm.length) => {
  const out = new Float32Array(Math.max(0, to - from));
  for (let i = 0; i < out.length; i++) out[i] = pcm[from + i]! / 32768;
  return out;
};

export class SpeakerModels {
  private readonly extractor: SpeakerEmbeddingExtractor;
  private readonly segmenter: OfflineSpeakerDiarization | null;

  constructor(private readonly setup: SpeakerSetup) {
    const sherpa = loadSherpa();
    this.extractor = new sherpa.SpeakerEmbeddingExtractor(speakerEmbeddingConfig(setup.embedding));
    this.segmenter = setup.segmentation
      ? new sherpa.OfflineSpeakerDiarization(speakerDiarizationConfig(setup.segmentation, setup.embedding, setup.threshold))
      : null;
  }

  /** One embedding of pcm[start, end) seconds, or null when too short for the extractor. */
  private embed(pcm: Int16Array, start: number, end: number): number[] | null {
    const from = Math.max(0, Math.floor(start * RATE));
    const to = Math.min(pcm.length, Math.floor(end * RATE));
    if (to - from < MIN_EMBED_SECONDS * RATE) return null;
    const stream = this.extractor.createStream();
    stream.acceptWaveform({ samples: toFloat(pcm, from, to), sampleRate: RATE });
    stream.inputFinished();
    if (!this.extractor.isReady(stream)) return null;
    const v = Array.from(this.extractor.compute(stream, false));
    return v.every(Number.isFinite) ? v : null;
  }

  private referenceVectors(references: Int16Array[]): { refs: number[][]; refOf: number[] } {
    const refs: number[][] = [];
    const refOf: number[] = [];
    references.forEach((r, k) => {
      for (const [a, b] of referencePieces(r.length / RATE)) {
        const v = this.embed(r, a, b);
        if (v) {
          refs.push(v);
          refOf.push(k);
        }
      }
    });
    return { refs, refOf };
  }

  diarize(req: Omit<SpeakerRequest, 'id' | 'op'>): SpeakerAnswer {
    const vectors = req.spans.map((s) => this.embed(req.pcm, s.start, s.end));
    const { refs, refOf } = this.referenceVectors(req.references);
    const segments = this.segmenter ? this.segmenter.process(toFloat(req.pcm)) : [];
    if (!segments.length) return { ...labelSpans(vectors, refs, refOf, this.setup.threshold, cosineDistance), method: 'embeddings' };
    const raw = req.spans.map((s) => speakerOf(s, segments));
    const order = new Map<number, number>();
    const labels = raw.map((r) => {
      if (!order.has(r)) order.set(r, order.size);
      return order.get(r)!;
    });
    return { labels, known: matchKnown(labels, order.size, vectors, refs, refOf, this.setup.threshold), method: 'segmentation' };
  }
}

/** The segment speaker overlapping the span most; with no overlap, the nearest segment's. */
function speakerOf(span: { start: number; end: number }, segments: Array<{ start: number; end: number; speaker: number }>): number {
  let best = -1;
  let bestOverlap = 0;
  let nearest = segments[0]!.speaker;
  let nearestGap = Infinity;
  const overlap = new Map<number, number>();
  for (const seg of segments) {
    const o = Math.min(span.end, seg.end) - Math.max(span.start, seg.start);
    if (o > 0) {
      const total = (overlap.get(seg.speaker) ?? 0) + o;
      overlap.set(seg.speaker, total);
      if (total > bestOverlap) {
        bestOverlap = total;
        best = seg.speaker;
      }
    }
    const gap = Math.max(seg.start - span.end, span.start - seg.end);
    if (gap < nearestGap) {
      nearestGap = gap;
      nearest = seg.speaker;
    }
  }
  return best >= 0 ? best : nearest;
}

/**
 * For each label, the known speaker it is (-1: none): label and speaker pairs are taken closest
 * first (cosine distance of the label's mean span embedding to the speaker's mean reference
 * embedding), each label and each speaker once, only within `threshold`.
 */
function matchKnown(
  labels: number[],
  count: number,
  vectors: Array<number[] | null>,
  refs: number[][],
  refOf: number[],
  threshold: number,
): number[] {
  const known = new Array<number>(count).fill(-1);
  if (!refs.length) return known;
  const mean = (vs: number[][]) => (vs.length ? vs[0]!.map((_, d) => vs.reduce((a, v) => a + v[d]!, 0) / vs.length) : null);
  const unit = (v: number[]) => {
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  const labelMeans = Array.from({ length: count }, (_, l) =>
    mean(vectors.filter((v, i): v is number[] => v !== null && labels[i] === l).map(unit)),
  );
  const speakers = Math.max(...refOf) + 1;
  const refMeans = Array.from({ length: speakers }, (_, k) => mean(refs.filter((_, i) => refOf[i] === k).map(unit)));
  const pairs: Array<[number, number, number]> = [];
  labelMeans.forEach((a, l) => refMeans.forEach((b, k) => a && b && pairs.push([cosineDistance(a, b), l, k])));
  pairs.sort((x, y) => x[0] - y[0]);
  const taken = new Set<number>();
  for (const [d, l, k] of pairs) {
    if (d > threshold) break;
    if (known[l] !== -1 || taken.has(k)) continue;
    known[l] = k;
    taken.add(k);
  }
  return known;
}

// As a worker thread: load, say ready (or why not), then answer requests in order.
if (parentPort && (workerData as { speakerHost?: SpeakerSetup } | null)?.speakerHost) {
  const port = parentPort;
  let models: SpeakerModels | null = null;
  try {
    models = new SpeakerModels((workerData as { speakerHost: SpeakerSetup }).speakerHost);
    port.postMessage({ ready: true });
  } catch (err) {
    port.postMessage({ ready: false, message: (err as Error).message });
  }
  port.on('message', (m: SpeakerRequest) => {
    try {
      port.postMessage({ id: m.id, ok: true, value: models!.diarize(m) });
    } catch (err) {
      port.postMessage({ id: m.id, ok: false, message: (err as Error).message });
    }
  });
}
