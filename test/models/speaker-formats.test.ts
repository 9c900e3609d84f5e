// The speaker formats' metadata rules (src/models/speaker-formats.ts): what sherpa-onnx would end
// the process on is refused by name; and the shared clustering (src/audio/speaker-clusters.ts) on
// embeddings by cosine distance, with known speakers as anchors.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSpeakerMetadata, speakerFormatOf } from '../../src/models/speaker-formats.js';
import { cosineDistance, labelSpans } from '../../src/audio/speaker-clusters.js';

// As sherpa-onnx's export scripts write them (scripts/pyannote/segmentation/export-onnx.py, scripts/3dspeaker/export-onnx.py).
const PYANNOTE = {
  model_type: 'pyannote-segmentation-3.0',
  version: '1',
  sample_rate: '16000',
  window_size: '160000',
  receptive_field_size: '991',
  receptive_field_shift: '270',
  num_speakers: '3',
  powerset_max_classes: '2',
  num_classes: '7',
};
const ERES2NET = {
  framework: '3d-speaker',
  language: 'Chinese',
  sample_rate: '16000',
  output_dim: '512',
  normalize_samples: '1',
  feature_normalize_type: 'global-mean',
};

test('the formats are told apart by their metadata; recognizers and voices are not speaker models', () => {
  assert.equal(speakerFormatOf(PYANNOTE), 'speaker-segmentation');
  assert.equal(speakerFormatOf(ERES2NET), 'speaker-embedding');
  assert.equal(speakerFormatOf({ ...ERES2NET, framework: 'wespeaker', feature_normalize_type: '' }), 'speaker-embedding');
  assert.equal(speakerFormatOf({ vocab_size: '29', subsampling_factor: '4' }), null);
  assert.equal(speakerFormatOf({ sample_rate: '22050', n_speakers: '1', comment: 'piper' }), null);
  checkSpeakerMetadata('seg.onnx', 'speaker-segmentation', PYANNOTE);
  checkSpeakerMetadata('emb.onnx', 'speaker-embedding', ERES2NET);
});

test('metadata sherpa-onnx would end the process on is refused, naming the key', () => {
  const refuse = (format: 'speaker-segmentation' | 'speaker-embedding', meta: Record<string, string>, why: RegExp) =>
    assert.throws(() => checkSpeakerMetadata('m.onnx', format, meta), why);
  const { num_classes: _n, ...noClasses } = PYANNOTE;
  refuse('speaker-segmentation', noClasses, /num_classes/);
  refuse('speaker-segmentation', { ...PYANNOTE, window_size: 'ten seconds' }, /window_size/);
  refuse('speaker-segmentation', { ...PYANNOTE, powerset_max_classes: '3' }, /powerset_max_classes 3/);
  refuse('speaker-segmentation', { ...PYANNOTE, sample_rate: '8000' }, /8000 Hz/);
  const { language: _l, ...noLanguage } = ERES2NET;
  refuse('speaker-embedding', noLanguage, /language/);
  refuse('speaker-embedding', { ...ERES2NET, framework: 'nemo' }, /NeMo/);
  refuse('speaker-embedding', { ...ERES2NET, framework: 'speechbrain' }, /speechbrain/);
  refuse('speaker-embedding', { ...ERES2NET, feature_normalize_type: 'per-utterance' }, /global-mean/);
});

test('embeddings cluster by cosine distance, numbered by first appearance; a known speaker names its cluster', () => {
  const a = [1, 0.1, 0];
  const b = [0, 1, 0.1];
  const spans = [a, b, [2, 0.3, 0], null, [0.1, 3, 0]];
  assert.deepEqual(labelSpans(spans, [], [], 0.5, cosineDistance).labels, [0, 1, 0, 0, 1]);
  // Scale does not matter to cosine distance; the reference like b names label 1, none is like a.
  const { labels, known } = labelSpans(spans, [[0, 5, 0.4]], [0], 0.5, cosineDistance);
  assert.deepEqual(labels, [0, 1, 0, 0, 1]);
  assert.deepEqual(known, [-1, 0]);
  // Past the threshold nothing merges; at 2 (opposite directions) everything does.
  assert.deepEqual(labelSpans([a, b], [], [], 0.01, cosineDistance).labels, [0, 1]);
  assert.deepEqual(labelSpans([a, b], [], [], 1.99, cosineDistance).labels, [0, 0]);
});
