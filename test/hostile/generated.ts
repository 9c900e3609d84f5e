// fast-check arbitraries for issue 19's property-based part: random request bodies for the TTS
// endpoints, the STT endpoints (multipart and raw) and the dashboard's JSON API. Valid values are
// mixed in on purpose (so the generator reaches past the schema into markup, pricing, engines
// and decoders), kept short so the engines' work stays small.

import fc from 'fast-check';
import { multipartBody, wav } from './builders.js';
import { GENERATE, GENERATE_TIMED, JOBS, OPENAI_SPEECH, OPENAI_UPLOAD_PATHS, STREAM, STT_PATHS, type HostileCase } from './corpus.js';

type Req = Pick<HostileCase, 'who' | 'method' | 'path' | 'headers' | 'body'>;

const anyJson = fc.jsonValue({ maxDepth: 3 });
const shortText = fc.constantFrom('Hi.', 'Hello there.', 'One two.', 'Yes', '42 %', 'Mr. Smith', '¿Qué?');
const markupToken = fc.constantFrom(
  '<',
  '>',
  '/',
  '/>',
  'break',
  ' time="',
  'time=',
  '1s',
  '500ms',
  '"',
  "'",
  'laugh',
  'whisper',
  'sigh',
  '</whisper>',
  '<whisper>',
  '<laugh/>',
  '<break time="1s"/>',
  ' ',
  '\t',
  'a',
  'Hi',
  '&',
  '=',
  '\u0000',
  '\u202e',
  '\ud800',
  '🙂',
  'e\u0301',
  '-1',
  '1e309',
  'NaN',
);
const markupText = fc.array(markupToken, { minLength: 1, maxLength: 24 }).map((xs) => xs.join(''));
const oddText = fc.string({ unit: 'binary', maxLength: 40 });
const text = fc.oneof(
  { weight: 3, arbitrary: shortText },
  { weight: 4, arbitrary: markupText },
  { weight: 3, arbitrary: oddText },
  { weight: 1, arbitrary: anyJson },
);

/** Mostly a valid value (so the body gets past the schema to markup, pricing and engines), sometimes a hostile one. */
const mostly = <T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: hostile });

const voice = mostly(
  fc.constantFrom('Aria', 'Aria', 'aura-01'),
  fc.oneof(fc.constantFrom('Amelia', 'aura-30', 'Nobody', ''), fc.string({ maxLength: 12 }), anyJson),
);
const ttsModel = mostly(
  fc.constantFrom('aura-prime', 'aura-lite'),
  fc.oneof(fc.constantFrom('aura-max', 'rapid-max', 'rapid-flash'), fc.string({ maxLength: 12 }), anyJson),
);
const language = mostly(
  fc.constantFrom('en-US', 'en'),
  fc.oneof(fc.constantFrom('de-DE', 'ja', 'xx', 'en_us', 'EN-us'), fc.string({ maxLength: 20 }), anyJson),
);
const speedLike = mostly(fc.constantFrom(0.5, 1, 2, 1.25), fc.oneof(fc.double({ noNaN: true }), fc.integer(), anyJson));
const format = mostly(fc.constantFrom('wav', 'mp3', 'ogg', 'flac'), fc.oneof(fc.constantFrom('WAV', 'aac'), anyJson));
const sampleRate = mostly(
  fc.constantFrom(8000, 16000, 22050, 24000, 44100, 48000),
  fc.oneof(fc.integer(), fc.double({ noNaN: true }), anyJson),
);

const generateFields = fc.record(
  {
    text,
    voice,
    model: ttsModel,
    language,
    speed: speedLike,
    pitch: mostly(fc.constantFrom(0, -3, 5), fc.oneof(fc.double({ noNaN: true }), anyJson)),
    format,
  },
  { requiredKeys: ['text', 'voice'] },
);
const streamFields = fc.record(
  { text, voice, model: ttsModel, language, speed: speedLike, sample_rate: sampleRate },
  { requiredKeys: ['text', 'voice'] },
);

/** A JSON text broken in one of the ways clients break it: cut short, a byte flipped, junk added. */
function mangled(valid: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  return fc
    .tuple(valid, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('cut', 'flip', 'append', 'as-is', 'as-is'))
    .map(([s, at, byte, how]) => {
      const b = Buffer.from(s);
      const i = b.length ? at % b.length : 0;
      if (how === 'cut') return b.subarray(0, i);
      if (how === 'flip') {
        const c = Buffer.from(b);
        if (c.length) c[i] = byte;
        return c;
      }
      if (how === 'append') return Buffer.concat([b, Buffer.from([byte])]);
      return b;
    });
}

const JSON_CT: [string, string] = ['Content-Type', 'application/json'];

function ttsBodies(path: string, fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Req> {
  const body = fc.oneof(
    { weight: 6, arbitrary: mangled(fields.map((f) => JSON.stringify(f))) },
    { weight: 1, arbitrary: mangled(fc.json({ maxDepth: 4 })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((u) => Buffer.from(u)) },
  );
  return fc
    .tuple(body, fc.constantFrom<HostileCase['who']>('rich', 'rich', 'rich', 'broke', 'none'))
    .map(([b, who]) => ({ who, method: 'POST', path, headers: [JSON_CT], body: b }));
}

export const generateRequests = ttsBodies(GENERATE, generateFields);
export const timedGenerateRequests = ttsBodies(GENERATE_TIMED, generateFields);
export const streamRequests = ttsBodies(STREAM, streamFields);

const sttFieldName = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      'model',
      'language',
      'response_format',
      'prompt',
      'timestamp_granularities',
      'timestamp_granularities[]',
      'diarize',
      'smart_format',
      'punctuate',
      'keywords',
      'redact',
      'profanity_filter',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);
const sttFieldValue = fc.oneof(
  fc.constantFrom(
    'cipher-fast',
    'cipher-max',
    'lucid-mono',
    'lucid-multi',
    'lucid-agent',
    'lucid-lite',
    'en',
    'de',
    'json',
    'text',
    'verbose_json',
    'srt',
    'vtt',
    'word',
    'segment',
    'true',
    'false',
    'hello,world:2',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
/** Audio files: short valid WAVs, WAVs whose header fields are random, magic numbers with junk, junk. */
const audioFile = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(8000, 16000, 44100).map((rate) => wav({ pcm: Buffer.alloc(Math.round(rate * 0.25) * 2), sampleRate: rate })),
  },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          channels: fc.integer({ min: 0, max: 65535 }),
          sampleRate: fc.nat(),
          bits: fc.integer({ min: 0, max: 65535 }),
          format: fc.integer({ min: 0, max: 65535 }),
          riffSize: fc.nat(),
          dataSize: fc.nat(),
          fmtSize: fc.constantFrom(16, 18, 0, 0xffffffff),
          pcm: fc.uint8Array({ maxLength: 4000 }),
        },
        { requiredKeys: ['pcm'] },
      )
      .map((f) => wav({ ...f, pcm: Buffer.from(f.pcm) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('ID3', 'OggS', 'fLaC', '\u001aE\u00df\u00a3', '\u0000\u0000\u0000\u0020ftypM4A ', '\u00ff\u00fb'),
        fc.uint8Array({ maxLength: 3000 }),
      )
      .map(([m, j]) => Buffer.concat([Buffer.from(m, 'latin1'), Buffer.from(j)])),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3000 }).map((u) => Buffer.from(u)) },
);

export const sttMultipartRequests: fc.Arbitrary<Req> = fc
  .tuple(
    fc.constantFrom(...STT_PATHS),
    fc.option(audioFile, { freq: 6 }),
    fc.array(fc.tuple(sttFieldName, sttFieldValue), { maxLength: 5 }),
    fc.constantFrom<HostileCase['who']>('rich', 'rich', 'rich', 'broke'),
    fc.constantFrom('ok', 'ok', 'ok', 'cut', 'no-boundary'),
    fc.nat(),
  )
  .map(([path, file, fields, who, shape, cut]) => {
    const { body, contentType } = multipartBody([
      ...(file ? [{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file }] : []),
      ...fields.map(([name, v]) => ({ name, data: Buffer.from(v) })),
    ]);
    const ct = shape === 'no-boundary' ? 'multipart/form-data' : contentType;
    return {
      who,
      method: 'POST',
      path,
      headers: [['Content-Type', ct]] as Array<[string, string]>,
      body: shape === 'cut' ? body.subarray(0, cut % Math.max(1, body.length)) : body,
    };
  });

export const sttRawRequests: fc.Arbitrary<Req> = fc
  .tuple(
    fc.constantFrom(...STT_PATHS),
    fc.constantFrom(
      'audio/wav',
      'audio/mpeg',
      'application/octet-stream',
      'text/plain',
      'multipart/form-data; boundary=',
      'multipart/mixed; boundary=x',
      'application/json',
      '',
    ),
    audioFile,
  )
  .map(([path, ct, body]) => ({
    who: 'rich' as const,
    method: 'POST',
    path,
    headers: ct ? ([['Content-Type', ct]] as Array<[string, string]>) : [],
    body,
  }));

// The OpenAI dialect (/v1, Bearer auth from the harness): speech as JSON, uploads as multipart.
const openAiSpeechFields = fc.record(
  {
    model: mostly(
      fc.constantFrom('tts-1', 'tts-1', 'gpt-4o-mini-tts', 'aura-prime'),
      fc.oneof(fc.constantFrom('tts-2', 'whisper-1', ''), fc.string({ maxLength: 12 }), anyJson),
    ),
    input: text,
    voice: mostly(
      fc.constantFrom('alloy', 'nova', 'Onyx', 'Aria'),
      fc.oneof(fc.constantFrom('nobody', ''), fc.record({ id: fc.string({ maxLength: 8 }) }), anyJson),
    ),
    response_format: mostly(
      fc.constantFrom('mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'),
      fc.oneof(fc.constantFrom('ogg', 'MP3', 'mp4', ''), anyJson),
    ),
    speed: mostly(fc.constantFrom(0.25, 1, 2.5, 4), fc.oneof(fc.double({ noNaN: true }), fc.string({ maxLength: 5 }), anyJson)),
    instructions: mostly(fc.constantFrom('Speak calmly.', ''), fc.oneof(oddText, anyJson)),
    stream_format: mostly(fc.constantFrom('audio', 'sse'), fc.oneof(fc.constantFrom('SSE', 'chunked', ''), anyJson)),
  },
  { requiredKeys: ['input'] },
);
export const openAiSpeechRequests = ttsBodies(OPENAI_SPEECH, openAiSpeechFields);

const openAiFieldName = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom('model', 'language', 'prompt', 'response_format', 'timestamp_granularities[]', 'stream', 'temperature'),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
);
const openAiFieldValue = fc.oneof(
  fc.constantFrom(
    'whisper-1',
    'whisper-1',
    'gpt-4o-transcribe',
    'gpt-4o-mini-transcribe',
    'cipher-fast',
    'en',
    'json',
    'text',
    'verbose_json',
    'srt',
    'vtt',
    'word',
    'segment',
    'true',
    'false',
    '0.2',
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
export const openAiUploadRequests: fc.Arbitrary<Req> = fc
  .tuple(
    fc.constantFrom(...OPENAI_UPLOAD_PATHS),
    fc.option(audioFile, { freq: 6 }),
    fc.array(fc.tuple(openAiFieldName, openAiFieldValue), { maxLength: 5 }),
    fc.constantFrom<HostileCase['who']>('rich', 'rich', 'rich', 'broke', 'none'),
    fc.constantFrom('ok', 'ok', 'ok', 'cut', 'no-boundary', 'json'),
    fc.nat(),
  )
  .map(([path, file, fields, who, shape, cut]) => {
    if (shape === 'json')
      return { who, method: 'POST', path, headers: [JSON_CT], body: Buffer.from(JSON.stringify(Object.fromEntries(fields))) };
    const { body, contentType } = multipartBody([
      ...(file ? [{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file }] : []),
      ...fields.map(([name, v]) => ({ name, data: Buffer.from(v) })),
    ]);
    const ct = shape === 'no-boundary' ? 'multipart/form-data' : contentType;
    return {
      who,
      method: 'POST',
      path,
      headers: [['Content-Type', ct]] as Array<[string, string]>,
      body: shape === 'cut' ? body.subarray(0, cut % Math.max(1, body.length)) : body,
    };
  });

const email = fc.oneof(fc.emailAddress(), fc.string({ maxLength: 30 }), anyJson);
export const dashboardRequests: fc.Arbitrary<Req> = fc.oneof(
  mangled(
    fc.record({ email, password: fc.oneof(fc.string({ maxLength: 30 }), anyJson) }, { requiredKeys: [] }).map((r) => JSON.stringify(r)),
  ).map((body) => ({ who: 'none' as const, method: 'POST', path: '/dashboard/api/session', headers: [JSON_CT], body })),
  mangled(
    fc
      .record(
        { name: fc.oneof(fc.string({ maxLength: 40 }), anyJson), mode: fc.oneof(fc.constantFrom('live', 'test'), anyJson) },
        { requiredKeys: [] },
      )
      .map((r) => JSON.stringify(r)),
  ).map((body) => ({ who: 'session' as const, method: 'POST', path: '/dashboard/api/keys', headers: [JSON_CT], body })),
  fc
    .string({ maxLength: 30 })
    .map((q) => ({ who: 'session' as const, method: 'GET', path: `/dashboard/api/usage?mode=${encodeURIComponent(q)}` })),
  fc
    .string({ maxLength: 30 })
    .map((id) => ({ who: 'session' as const, method: 'DELETE', path: `/dashboard/api/keys/${encodeURIComponent(id) || 'x'}` })),
  fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), fc.string({ maxLength: 12 })).map(([limit, cursor, status]) => ({
    who: 'session' as const,
    method: 'GET',
    path: `/dashboard/api/jobs?limit=${encodeURIComponent(limit)}&cursor=${encodeURIComponent(cursor)}&status=${encodeURIComponent(status)}`,
  })),
  fc
    .string({ maxLength: 30 })
    .map((id) => ({ who: 'session' as const, method: 'DELETE', path: `/dashboard/api/jobs/${encodeURIComponent(id) || 'x'}` })),
);

/** URLs: mostly well-formed (public names that are never fetched: the hostile service runs no jobs), often hostile. */
const jobUrl = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'file:///etc/passwd',
      'http://169.254.169.254/',
      'http://[::1]/',
      'http://u:p@example.com/',
      'ftp://x/',
      'http://',
      '',
      'http://0/',
      'https://example.com/a.wav',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: anyJson },
);
const jobFields = fc.record(
  {
    url: jobUrl,
    callback_url: fc.option(jobUrl, { nil: undefined }),
    model: mostly(fc.constantFrom('cipher-fast', 'lucid-mono'), fc.oneof(fc.string({ maxLength: 12 }), anyJson)),
    response_format: mostly(fc.constantFrom('json', 'text', 'srt', 'vtt', 'verbose_json'), anyJson),
    zero_retention: mostly(fc.boolean(), anyJson),
    keywords: mostly(fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), anyJson),
  },
  { requiredKeys: [] },
);
const idempotencyKey = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }).filter((k) => /^[\x21-\x7e]+$/.test(k)),
  fc.string({ unit: 'grapheme-ascii', maxLength: 300 }).filter((k) => !/[\r\n\0]/.test(k)),
);

/** POST /api/v1/stt/jobs with JSON bodies (mangled too) and Idempotency-Keys, and the list, get and delete routes with random queries and ids. */
export const jobRequests: fc.Arbitrary<Req> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        mangled(jobFields.map((f) => JSON.stringify(f))),
        fc.option(idempotencyKey, { nil: undefined }),
        fc.constantFrom<HostileCase['who']>('rich', 'rich', 'broke', 'none'),
      )
      .map(([body, key, who]) => ({
        who,
        method: 'POST',
        path: JOBS,
        headers: [JSON_CT, ...(key === undefined ? [] : [['Idempotency-Key', key] as [string, string]])],
        body,
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record(
        {
          limit: fc.oneof(fc.integer(), fc.string({ maxLength: 6 })),
          cursor: fc.oneof(fc.base64String({ maxLength: 80 }), fc.string({ maxLength: 40 })),
          status: fc.oneof(fc.constantFrom('queued', 'running', 'done'), fc.string({ maxLength: 8 })),
        },
        { requiredKeys: [] },
      )
      .map((q) => ({
        who: 'rich' as const,
        method: 'GET',
        path: `${JOBS}?${new URLSearchParams(q as Record<string, string>).toString()}`,
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('GET', 'DELETE'),
        fc.oneof(fc.string({ maxLength: 30 }), fc.stringMatching(/^job_[A-Za-z0-9]{20}$/)),
        fc.constantFrom('', '/result'),
      )
      .map(([method, id, tail]) => ({
        who: 'rich' as const,
        method,
        path: `${JOBS}/${encodeURIComponent(id) || 'x'}${method === 'GET' ? tail : ''}`,
      })),
  },
);
