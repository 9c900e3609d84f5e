// The hostile-input corpus of issue 19: every reproducer of the issue, wrong types for every field
// of every endpoint, unicode edge cases, unclosed and nested tags, absurd break times, deep JSON,
// every multipart fault, truncated and lying audio headers, odd methods and paths, header abuse.
// Plain data (named cases) so the test suite and bench/hostile-health.ts send the same inputs.
// Expectations beyond the suite-wide invariant (check.ts) are stated per case where the issue or
// the spec fixes the answer; everything else only has to keep the invariant.

import { multipartBody, wav, silenceWav, type MultipartPart } from './builders.js';

/** Whose credentials a case carries. */
export type Who = 'rich' | 'broke' | 'none' | 'bad-key' | 'session';

export interface CaseExpect {
  /** Allowed statuses (otherwise: any status the invariant allows). */
  status?: number[];
  /** Allowed error codes for a non-2xx answer. */
  code?: string[];
  /** The answer must not be a 2xx (nothing free, nothing served that should not be). */
  not2xx?: boolean;
  /** Further checks on the answer; returns a problem or null. */
  check?: (res: { status: number; headers: Record<string, string>; body: Buffer; trailers: Record<string, string> }) => string | null;
}

export interface HostileCase {
  name: string;
  group: string;
  /** The defect of issue 19 this case reproduces. */
  issue?: number;
  who: Who;
  method: string;
  path: string;
  headers?: Array<[string, string]>;
  body?: Buffer;
  /** Declared Content-Length when it must differ from the body (null: none at all). */
  contentLength?: number | null;
  expect?: CaseExpect;
  /** Only sent once this case has passed (a smaller input of a superlinear defect: bigger ones would stall the run for minutes or hours). */
  requires?: string;
}

const JSON_CT: [string, string] = ['Content-Type', 'application/json'];
const jsonBody = (v: unknown) => Buffer.from(JSON.stringify(v));
const raw = (s: string) => Buffer.from(s, 'utf8');

export const GENERATE = '/api/v1/tts/generate';
export const GENERATE_TIMED = '/api/v1/tts/generate/with-timestamps';
export const STREAM = '/api/v1/tts/stream';
export const STT_PATHS = ['/api/v1/stt/transcribe', '/api/v1/stt/cipher/transcribe', '/api/v1/stt/lucid/transcribe'] as const;

/** Valid, cheap bodies: a few characters of Flite speech. */
export const GENERATE_BASE = { text: 'Hi.', voice: 'Aria', model: 'aura-prime', language: 'en-US', speed: 1, pitch: 0, format: 'wav' };
export const STREAM_BASE = { text: 'Hi.', voice: 'Aria', model: 'aura-prime', language: 'en-US', sample_rate: 8000, speed: 1 };

function post(name: string, group: string, path: string, body: Buffer, opts: Partial<HostileCase> = {}): HostileCase {
  return { name, group, who: 'rich', method: 'POST', path, headers: [JSON_CT], body, ...opts };
}

const badRequest: CaseExpect = { status: [400] };
const clientError = (extra: CaseExpect = {}): CaseExpect => ({ not2xx: true, ...extra });

/** Values of the wrong JSON type for a field of the given type; all but null (which means "not given": see fieldCases) must be answered 400. */
function wrongTypes(type: 'string' | 'number' | 'integer'): Array<[string, string]> {
  const all: Array<[string, string, string[]]> = [
    ['null', 'null', []],
    ['true', 'true', []],
    ['number', '7', ['number', 'integer']],
    ['float', '1.5', ['number']],
    ['huge number', '1e308', ['number', 'integer']],
    ['overflowing number', '1e999', ['number', 'integer']],
    ['negative zero', '-0', ['number', 'integer']],
    ['string', '"1"', ['string']],
    ['empty array', '[]', []],
    ['array of string', '["x"]', []],
    ['empty object', '{}', []],
    ['object', '{"a":{"b":1}}', []],
  ];
  return all.filter(([, , ok]) => !ok.includes(type)).map(([n, v]) => [n, v]);
}

/** Same-type values that are out of range or odd: the invariant decides. */
function oddValues(type: 'string' | 'number' | 'integer'): Array<[string, string]> {
  if (type === 'string')
    return [
      ['empty string', '""'],
      ['spaces', '"   "'],
      ['10k chars', JSON.stringify('x'.repeat(10_000))],
      ['NUL', '"\\u0000"'],
      ['lone surrogate', '"\\ud800"'],
      ['path', '"../../etc/passwd"'],
      ['html', '"<script>alert(1)</script>"'],
    ];
  return [
    ['zero', '0'],
    ['negative', '-1'],
    ['huge', '1e308'],
    ['tiny', '1e-308'],
    ['max safe', String(Number.MAX_SAFE_INTEGER)],
    ['2^63', '9223372036854775808'],
  ];
}

function rawJsonWith(base: Record<string, unknown>, field: string, rawValue: string): Buffer {
  const rest = { ...base };
  delete rest[field];
  const head = JSON.stringify(rest).slice(0, -1);
  return raw(`${head}${head.length > 1 ? ',' : ''}"${field}":${rawValue}}`);
}

/** The fields both TTS endpoints require: null for them is a missing field (400). */
const REQUIRED_TTS_FIELDS = ['text', 'voice'];
const FIELD_TYPES_GENERATE: Record<string, 'string' | 'number'> = {
  text: 'string',
  voice: 'string',
  model: 'string',
  language: 'string',
  speed: 'number',
  pitch: 'number',
  format: 'string',
};
const FIELD_TYPES_STREAM: Record<string, 'string' | 'number' | 'integer'> = {
  text: 'string',
  voice: 'string',
  model: 'string',
  language: 'string',
  sample_rate: 'integer',
  speed: 'number',
  pitch: 'number',
};

function fieldCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const [path, base, types] of [
    [GENERATE, GENERATE_BASE, FIELD_TYPES_GENERATE],
    [STREAM, STREAM_BASE, FIELD_TYPES_STREAM],
  ] as const) {
    for (const [field, type] of Object.entries(types)) {
      // null means "not given" (docs/architecture.md): a required field sent as null is missing
      // (400), an optional one takes its default, so the answer is the valid body's: 200, or 402
      // for the 0-credit account.
      const required = REQUIRED_TTS_FIELDS.includes(field);
      for (const [n, v] of wrongTypes(type)) {
        const expect = n === 'null' && !required ? { status: [200] } : badRequest;
        out.push(post(`${path} ${field}: ${n}`, 'wrong types', path, rawJsonWith(base, field, v), { expect }));
      }
      for (const [n, v] of oddValues(type)) out.push(post(`${path} ${field}: ${n}`, 'odd values', path, rawJsonWith(base, field, v)));
      // The same with the 0-credit account: nothing valid may pass for free.
      const brokeNull: CaseExpect = required ? badRequest : { status: [402], code: ['INSUFFICIENT_CREDITS'] };
      out.push(
        post(`${path} ${field}: null (0 credits)`, 'wrong types', path, rawJsonWith(base, field, 'null'), {
          who: 'broke',
          expect: brokeNull,
        }),
      );
    }
    out.push(post(`${path} body is an array`, 'wrong types', path, raw('[1,2]'), { expect: { status: [400], code: ['INVALID_REQUEST'] } }));
    out.push(
      post(`${path} body is a string`, 'wrong types', path, raw('"text"'), { expect: { status: [400], code: ['INVALID_REQUEST'] } }),
    );
    out.push(post(`${path} body is null`, 'wrong types', path, raw('null'), { expect: { status: [400] } }));
    out.push(post(`${path} body is a number`, 'wrong types', path, raw('42'), { expect: { status: [400] } }));
    out.push(post(`${path} empty body`, 'wrong types', path, Buffer.alloc(0), { expect: { status: [400] } }));
    out.push(
      post(`${path} malformed JSON`, 'wrong types', path, raw('{"text": "hi", '), { expect: { status: [400], code: ['INVALID_REQUEST'] } }),
    );
    out.push(
      post(`${path} trailing garbage`, 'wrong types', path, raw(`${JSON.stringify(base)}xyz`), {
        expect: { status: [400], code: ['INVALID_REQUEST'] },
      }),
    );
    out.push(post(`${path} __proto__ key`, 'wrong types', path, raw(`{"__proto__":{"admin":true},"text":"Hi.","voice":"Aria"}`)));
    out.push(
      post(
        `${path} constructor.prototype`,
        'wrong types',
        path,
        raw(`{"constructor":{"prototype":{"admin":true}},"text":"Hi.","voice":"Aria"}`),
      ),
    );
    out.push(
      post(`${path} duplicate keys`, 'wrong types', path, raw(`{"text":"Hi.","text":{"a":1},"voice":"Aria"}`), { expect: badRequest }),
    );
    out.push(post(`${path} missing everything`, 'wrong types', path, raw('{}'), { expect: badRequest }));
    out.push(
      post(
        `${path} invalid UTF-8 bytes`,
        'unicode',
        path,
        Buffer.concat([raw('{"text":"a'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), raw('","voice":"Aria"}')]),
      ),
    );
    out.push(
      post(`${path} UTF-16 body`, 'unicode', path, Buffer.from('\ufeff' + JSON.stringify(base), 'utf16le'), {
        headers: [['Content-Type', 'application/json; charset=utf-16']],
      }),
    );
    out.push(
      post(`${path} no key`, 'auth', path, jsonBody(base), { who: 'none', expect: { status: [401], code: ['AUTH_MISSING_API_KEY'] } }),
    );
    out.push(
      post(`${path} unknown key`, 'auth', path, jsonBody(base), {
        who: 'bad-key',
        expect: { status: [401], code: ['AUTH_INVALID_API_KEY'] },
      }),
    );
    out.push(
      post(`${path} valid body, 0 credits`, 'credits', path, jsonBody(base), {
        who: 'broke',
        expect: { status: [402], code: ['INSUFFICIENT_CREDITS'] },
      }),
    );
  }
  return out;
}

function unicodeCases(): HostileCase[] {
  const texts: Array<[string, string]> = [
    ['NUL inside', 'a\u0000b'],
    ['only NUL', '\u0000'],
    ['C0 controls', 'a\u0001\u0002\u0003\u0007\u0008\u000b\u000c\u000e\u001b\u001fb'],
    ['DEL and C1', 'a\u007f\u0085\u009bb'],
    ['lone high surrogate', 'a\ud800b'],
    ['lone low surrogate', 'a\udc00b'],
    ['reversed surrogates', 'a\udc00\ud800b'],
    ['RTL marks', '\u200fHello\u202e world\u202c\u200e'],
    ['combining pile', 'e' + '\u0301'.repeat(500)],
    ['emoji ZWJ family', 'Hi \u{1F468}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466} there'],
    ['BOM first', '\ufeffHello'],
    ['BOMs only', '\ufeff\ufeff'],
    ['4-byte letters', '\u{1D573}\u{1D58A}\u{1D591}\u{1D591}\u{1D594}'],
    ['zero-width only', '\u200b\u200c\u200d'],
    ['whitespace only', ' \t\n\r '],
    ['line separators', 'a\u2028b\u2029c'],
    ['noncharacters', 'a\ufffe\uffffb'],
    ['private use', '\ue000\uf8ff'],
    ['mixed scripts', 'Hello мир 世界 مرحبا'],
    ['NUL in markup', 'Hi <break time="1\u0000s"/> there'],
    ['5000 combining marks', 'a' + '\u0300'.repeat(4999)],
  ];
  const out: HostileCase[] = [];
  for (const [n, text] of texts) {
    // The issue's defect 5: no character may reach an engine that cannot take it (500 ENGINE_ERROR).
    out.push(
      post(`generate text: ${n}`, 'unicode', GENERATE, jsonBody({ ...GENERATE_BASE, text }), {
        issue: n.includes('NUL') || n.includes('C0') ? 5 : undefined,
      }),
    );
    out.push(post(`stream text: ${n}`, 'unicode', STREAM, jsonBody({ ...STREAM_BASE, text })));
  }
  // Numbers and notation the normalization step rewrites, which /tts/generate/with-timestamps
  // times on the spoken form and maps back to the words as written (issue 29, item 4): in English
  // on Flite (aligned, every number in words) and in German on eSpeak (word events).
  const numbers: Array<[string, string, Record<string, unknown>]> = [
    ['numbers in every notation', 'We fixed 1,250 bugs on 12/03/2024 for $3.50: 12%, 2.5, the 3rd, at 9:00, Dr. Lee, e.g. 1995.', {}],
    ['huge and tiny numbers', '12,345,678,901,234,567,890 and 0.000000000001 and 99999999999999999999%', {}],
    ['a run of 120 digits', '7'.repeat(120), {}],
    ['separators without digits between', '1,,2..3//4::5 $ % 1st2nd3rd', {}],
    [
      'German notation on eSpeak',
      'Am 15.03.2024 um 14:30 Uhr kostet es 3,50 € z. B. für Dr. Weber.',
      { model: 'aura-lite', voice: 'Hannah', language: 'de' },
    ],
  ];
  for (const [n, text, extra] of numbers)
    out.push(post(`generate text: ${n}`, 'unicode', GENERATE, jsonBody({ ...GENERATE_BASE, text, ...extra })));
  // Every engine gets control characters (defect 5: Flite takes text as argv, others as files).
  for (const [model, voice] of [
    ['aura-lite', 'Aria'],
    ['aura-prime', 'Aria'],
    ['aura-max', 'Aria'],
    ['rapid-flash', 'Amelia'],
    ['rapid-max', 'Aria'],
  ] as const) {
    out.push(
      post(`generate ${model}: NUL and controls`, 'unicode', GENERATE, jsonBody({ text: 'a\u0000b\u0001c\u001bd', voice, model }), {
        issue: 5,
      }),
    );
  }
  for (const [n, voice] of [
    ['voice NUL', 'Ar\u0000ia'],
    ['voice RTL', '\u202eairA'],
    ['voice surrogate', '\ud800'],
    ['voice emoji', '\u{1F600}'],
  ] as const) {
    out.push(post(`generate ${n}`, 'unicode', GENERATE, jsonBody({ ...GENERATE_BASE, voice }), { expect: clientError() }));
  }
  for (const [n, language] of [
    ['language NUL', 'en\u0000US'],
    ['language RTL', '\u202eSU-ne'],
    ['language 4-byte', '\u{1D573}\u{1D58A}'],
  ] as const) {
    out.push(post(`generate ${n}`, 'unicode', GENERATE, jsonBody({ ...GENERATE_BASE, language }), { expect: clientError() }));
  }
  return out;
}

function markupCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const gen = (name: string, text: string, opts: Partial<HostileCase> = {}) =>
    out.push(post(name, 'markup', GENERATE, jsonBody({ ...GENERATE_BASE, text }), opts));
  const str = (name: string, text: string, opts: Partial<HostileCase> = {}) =>
    out.push(post(name, 'markup', STREAM, jsonBody({ ...STREAM_BASE, text }), opts));
  // Defect 1: "<a" and whitespace made the tag regex cubic. Smaller inputs first: a bigger one is
  // only sent once the smaller one answered without stalling the event loop.
  gen('markup <a + 1,000 spaces', '<a' + ' '.repeat(1000), { issue: 1 });
  gen('markup <a + 4,998 spaces (issue reproducer)', '<a' + ' '.repeat(4998), { issue: 1, requires: 'markup <a + 1,000 spaces' });
  gen('markup <a + 4,998 spaces, 0 credits', '<a' + ' '.repeat(4998), {
    issue: 1,
    who: 'broke',
    requires: 'markup <a + 1,000 spaces',
    expect: clientError(),
  });
  str('stream markup <a + 3,000 spaces', '<a' + ' '.repeat(3000), { issue: 1, requires: 'markup <a + 1,000 spaces' });
  str('stream markup <a + 49,998 spaces', '<a' + ' '.repeat(49_998), { issue: 1, requires: 'stream markup <a + 3,000 spaces' });
  gen('markup <break + 4,990 spaces', '<break' + ' '.repeat(4990), { issue: 1, requires: 'markup <a + 1,000 spaces' });
  gen('markup <break time= + tabs and newlines', '<break time=' + ' \t\n'.repeat(1600), { issue: 1, requires: 'markup <a + 1,000 spaces' });
  gen('markup 2,500 "<" characters', '<'.repeat(2500), { requires: 'markup <a + 1,000 spaces' });
  gen('markup "<a " x 1,600', '<a '.repeat(1600), { requires: 'markup <a + 1,000 spaces' });
  gen('markup attribute storm', '<break' + ' time="1s"'.repeat(450) + '/>', { requires: 'markup <a + 1,000 spaces' });
  gen('markup unclosed quote', 'Hi <break time="1s/> there', { expect: clientError() });
  gen('markup unclosed whisper', 'Hi <whisper>there', { expect: clientError() });
  gen('markup nested whisper x 300 unclosed', '<whisper>'.repeat(300) + 'a', { expect: clientError() });
  gen('markup nested whisper x 300 closed', '<whisper>'.repeat(300) + 'a' + '</whisper>'.repeat(300));
  gen('markup stray closing tags', '</whisper>'.repeat(300) + 'a', { expect: clientError() });
  gen('markup crossed tags', 'a <whisper><laugh>b</whisper></laugh>');
  gen('markup unknown tag', 'Hi <script>alert(1)</script>', { expect: clientError() });
  gen('markup comment', 'Hi <!-- x --> there');
  gen('markup CDATA', 'Hi <![CDATA[ x ]]> there');
  gen('markup processing instruction', '<?xml version="1.0"?>Hi');
  gen('markup entity', 'Hi &amp; &#0; &#x110000; &bogus; there');
  gen('markup uppercase tag', 'Hi <BREAK TIME="1s"/> there');
  gen('markup break without time', 'Hi <break/> there', { expect: clientError() });
  gen('markup break with two times', 'Hi <break time="1s" time="2s"/> there');
  gen('markup break not self-closed', 'Hi <break time="1s"> there');
  // Absurd break times (each in an otherwise valid text).
  for (const t of [
    '1e309s',
    '-1s',
    '99999999999ms',
    'NaNs',
    'Infinitys',
    '0x10s',
    '1e3ms',
    ' 1s',
    '1 s',
    '',
    '1.5.5s',
    '\u0661s',
    '1s\u0000',
    '0s',
    '-0ms',
    '1e-400s',
    '5',
    's',
    'ms',
    '1h',
    '9'.repeat(400) + 'ms',
  ]) {
    gen(`break time="${t.length > 20 ? t.slice(0, 12) + '...' : t}"`, `Hi <break time="${t}"/> there`);
  }
  // Defect 2: audio for 1 credit, and audio for nothing.
  gen('262 breaks of 20s (87 minutes, issue reproducer)', 'a' + '<break time="20s"/>'.repeat(262), {
    issue: 2,
    expect: { status: [400, 413] },
  });
  gen('600 laughs, 0 credits (issue reproducer)', '<laugh/>'.repeat(600), { issue: 2, who: 'broke', expect: clientError() });
  str('stream 600 laughs, 0 credits', '<laugh/>'.repeat(600), { issue: 2, who: 'broke', expect: clientError() });
  str('stream 262 breaks at 48 kHz', 'a' + '<break time="20s"/>'.repeat(262));
  gen('only breaks, no text', '<break time="1s"/>'.repeat(3), { who: 'broke', expect: clientError() });
  return out;
}

/** JSON nested n levels deep, built as text (no recursion). */
export function deepArray(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}
function deepObject(n: number): string {
  return '{"a":'.repeat(n) + '1' + '}'.repeat(n);
}

function deepJsonCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const depth of [5_000, 100_000]) {
    const d = depth.toLocaleString('en-US');
    for (const field of ['text', 'voice', 'speed', 'format']) {
      out.push(
        post(
          `generate ${field}: arrays ${d} deep`,
          'deep JSON',
          GENERATE,
          rawJsonWith({ text: 'Hi.', voice: 'Aria' }, field, deepArray(depth)),
          { issue: 3, expect: badRequest },
        ),
      );
    }
    out.push(
      post(`generate text: objects ${d} deep`, 'deep JSON', GENERATE, raw(`{"voice":"Aria","text":${deepObject(depth)}}`), {
        issue: 3,
        expect: badRequest,
      }),
    );
    out.push(
      post(
        `stream sample_rate: arrays ${d} deep`,
        'deep JSON',
        STREAM,
        raw(`{"text":"Hi.","voice":"Aria","sample_rate":${deepArray(depth)}}`),
        { issue: 3, expect: badRequest },
      ),
    );
    out.push(post(`generate whole body: arrays ${d} deep`, 'deep JSON', GENERATE, raw(deepArray(depth)), { issue: 3, expect: badRequest }));
    out.push(
      post(
        `generate unknown field: arrays ${d} deep`,
        'deep JSON',
        GENERATE,
        raw(`{"text":"Hi.","voice":"Aria","extra":${deepArray(depth)}}`),
        { issue: 3 },
      ),
    );
    out.push(
      post(
        `dashboard sign-in email: arrays ${d} deep`,
        'deep JSON',
        '/dashboard/api/session',
        raw(`{"email":${deepArray(depth)},"password":"x"}`),
        { issue: 3, who: 'none', expect: badRequest },
      ),
    );
    out.push(
      post(
        `dashboard new key name: arrays ${d} deep`,
        'deep JSON',
        '/dashboard/api/keys',
        raw(`{"name":${deepArray(depth)},"mode":"live"}`),
        { issue: 3, who: 'session', expect: badRequest },
      ),
    );
  }
  return out;
}

/** A small valid upload and the STT fields of each endpoint, with wrong values. */
function sttFieldCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const file = silenceWav(0.3);
  const mp = (name: string, path: string, parts: MultipartPart[], opts: Partial<HostileCase> = {}) => {
    const { body, contentType } = multipartBody(parts);
    out.push({ name, group: 'stt fields', who: 'rich', method: 'POST', path, headers: [['Content-Type', contentType]], body, ...opts });
  };
  const fileParts = (fields: Record<string, string>): MultipartPart[] => [
    { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file },
    ...Object.entries(fields).map(([name, v]) => ({ name, data: Buffer.from(v) })),
  ];
  // The Lucid endpoint's requests name a Lucid model (the common default, cipher-fast, is refused there).
  const modelFor = (path: string): Record<string, string> => (path.includes('/lucid/') ? { model: 'lucid-lite' } : {});
  const bad: Record<string, string[]> = {
    model: ['', 'nope', 'cipher-fast\u0000', 'x'.repeat(5000), '../lucid-mono', 'CIPHER-FAST'],
    language: ['??', 'x'.repeat(5000), 'en\u0000', '\u202eus', 'zz-ZZ'],
    response_format: ['xml', 'JSON', '', 'verbose_json\u0000'],
    timestamp_granularities: ['char', 'word,char', '[]', '["word"]', 'word'],
    prompt: ['x'.repeat(3999), 'x'.repeat(4001), '\u0000', '<a' + ' '.repeat(3000)],
    diarize: ['maybe', '2', '', 'TRUE'],
    smart_format: ['maybe', 'null'],
    punctuate: ['yes please'],
    keywords: [',,,,', 'a:'.repeat(1500), 'x:1e999', ':'.repeat(3000), 'word:' + '9'.repeat(3000)],
    redact: ['pii', '__proto__', 'pci\u0000', 'pci,'.repeat(1000), '[[[', 'PCI, ,ssn', '"]'],
    profanity_filter: ['maybe', 'null', '\u0000'],
  };
  for (const path of STT_PATHS) {
    for (const [field, values] of Object.entries(bad)) {
      values.forEach((v, i) => mp(`${path} ${field} #${i + 1}`, path, fileParts({ ...modelFor(path), [field]: v })));
    }
    mp(`${path} valid upload`, path, fileParts(modelFor(path)), { expect: { status: [200] } });
    mp(`${path} valid upload, 0 credits`, path, fileParts(modelFor(path)), {
      who: 'broke',
      expect: { status: [402], code: ['INSUFFICIENT_CREDITS'] },
    });
    mp(
      `${path} repeated model field`,
      path,
      fileParts({ model: 'cipher-fast' }).concat([{ name: 'model', data: Buffer.from('lucid-mono') }]),
    );
    mp(
      `${path} 31 fields`,
      path,
      fileParts({ ...modelFor(path), ...Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`f${i}`, 'x'])) }),
      { expect: clientError() },
    );
    // Over the 16 KB field limit (the Lucid endpoint ignores prompt, so it gets keywords).
    mp(
      `${path} field of 20 KB`,
      path,
      fileParts({ ...modelFor(path), [path.includes('/lucid/') ? 'keywords' : 'prompt']: 'x'.repeat(20_000) }),
      { expect: clientError() },
    );
  }
  return out;
}

function multipartFaultCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const file = silenceWav(0.3);
  const good = multipartBody([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file }]);
  const boundary = good.contentType.split('boundary=')[1]!;
  const add = (name: string, contentType: string | null, body: Buffer, opts: Partial<HostileCase> = {}) => {
    for (const path of STT_PATHS) {
      out.push({
        name: `${path} multipart: ${name}`,
        group: 'multipart',
        who: 'rich',
        method: 'POST',
        path,
        headers: contentType === null ? [] : [['Content-Type', contentType]],
        body,
        ...opts,
      });
    }
  };
  const invalidRequest: CaseExpect = { status: [400], code: ['INVALID_REQUEST', 'MISSING_FILE'] };
  // Defect 4: each of these answered 500 INTERNAL_ERROR.
  add('no boundary', 'multipart/form-data', good.body, { issue: 4, expect: invalidRequest });
  add('wrong boundary', 'multipart/form-data; boundary=not-the-one', good.body, { issue: 4, expect: invalidRequest });
  const long = 'b'.repeat(300);
  add(
    'boundary over 256 characters',
    `multipart/form-data; boundary=${long}`,
    Buffer.concat([
      raw(`--${long}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
      file,
      raw(`\r\n--${long}--\r\n`),
    ]),
    { issue: 4, expect: invalidRequest },
  );
  add('truncated mid-part', good.contentType, good.body.subarray(0, Math.floor(good.body.length / 2)), {
    issue: 4,
    expect: invalidRequest,
  });
  add('truncated in the part headers', good.contentType, good.body.subarray(0, 60), { issue: 4, expect: invalidRequest });
  add('no closing boundary', good.contentType, good.body.subarray(0, good.body.length - boundary.length - 6), { expect: clientError() });
  add('empty body', good.contentType, Buffer.alloc(0), { expect: clientError() });
  // (On the Lucid endpoint a request without a model field is refused for its model first.)
  add('only the closing boundary', good.contentType, raw(`--${boundary}--\r\n`), {
    expect: { status: [400], code: ['MISSING_FILE', 'INVALID_REQUEST', 'INVALID_MODEL'] },
  });
  add(
    'part without a name',
    good.contentType,
    Buffer.concat([raw(`--${boundary}\r\nContent-Disposition: form-data; filename="a.wav"\r\n\r\n`), file, raw(`\r\n--${boundary}--\r\n`)]),
    { expect: clientError() },
  );
  add(
    'part without Content-Disposition',
    good.contentType,
    Buffer.concat([raw(`--${boundary}\r\nContent-Type: audio/wav\r\n\r\n`), file, raw(`\r\n--${boundary}--\r\n`)]),
    { expect: clientError() },
  );
  add(
    'part header of 100 KB',
    good.contentType,
    Buffer.concat([
      raw(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nX-Junk: ${'j'.repeat(100_000)}\r\n\r\n`),
      file,
      raw(`\r\n--${boundary}--\r\n`),
    ]),
  );
  add(
    'filename of 50 KB',
    good.contentType,
    Buffer.concat([
      raw(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${'f'.repeat(50_000)}"\r\n\r\n`),
      file,
      raw(`\r\n--${boundary}--\r\n`),
    ]),
  );
  add(
    '1,000 empty parts',
    good.contentType,
    raw(
      Array.from({ length: 1000 }, (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="p${i}"\r\n\r\n\r\n`).join('') +
        `--${boundary}--\r\n`,
    ),
    { expect: clientError() },
  );
  add(
    'two files',
    good.contentType,
    Buffer.concat([
      raw(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`),
      file,
      raw(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.wav"\r\n\r\n`),
      file,
      raw(`\r\n--${boundary}--\r\n`),
    ]),
    { expect: clientError() },
  );
  add(
    'file field sent as text',
    good.contentType,
    raw(`--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\nnot a file\r\n--${boundary}--\r\n`),
    { expect: clientError() },
  );
  add(
    'file under another name',
    good.contentType,
    Buffer.concat([
      raw(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\n`),
      file,
      raw(`\r\n--${boundary}--\r\n`),
    ]),
    { expect: { status: [400], code: ['MISSING_FILE', 'INVALID_MODEL'] } },
  );
  add(
    'nested multipart/mixed',
    good.contentType,
    raw(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n--inner\r\nContent-Disposition: file; filename="a.wav"\r\n\r\nxx\r\n--inner--\r\n--${boundary}--\r\n`,
    ),
    { expect: clientError() },
  );
  add(
    'boundary with quotes and spaces',
    'multipart/form-data; boundary="a b c"',
    raw(`--a b c\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`),
  );
  add('LF line endings', good.contentType, Buffer.from(good.body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'), {
    expect: clientError(),
  });
  add('Content-Type multipart/related', good.contentType.replace('form-data', 'related'), good.body);
  add('lying Content-Length (30 MB declared)', good.contentType, good.body, {
    contentLength: 30 * 1024 * 1024,
    expect: { status: [413], code: ['FILE_TOO_LARGE', 'REQUEST_TOO_LARGE'] },
  });
  // Raw uploads (no multipart): the documented 400, not a 415 or a 500.
  add('raw WAV body', 'audio/wav', file, { expect: { status: [400], code: ['INVALID_REQUEST'] } });
  add('raw octet-stream body', 'application/octet-stream', file, { expect: { status: [400], code: ['INVALID_REQUEST'] } });
  add('JSON body', 'application/json', raw('{"file":"a.wav"}'), { expect: clientError() });
  add('no Content-Type', null, file, { expect: clientError() });
  add('urlencoded body', 'application/x-www-form-urlencoded', raw('file=a.wav&model=cipher-fast'), { expect: clientError() });
  return out;
}

export const OPENAI_SPEECH = '/v1/audio/speech';
export const OPENAI_UPLOAD_PATHS = ['/v1/audio/transcriptions', '/v1/audio/translations'] as const;
/** A valid, cheap OpenAI speech body (tts-1 = aura-prime on Flite). */
export const OPENAI_SPEECH_BASE = {
  model: 'tts-1',
  input: 'Hi.',
  voice: 'alloy',
  response_format: 'wav',
  speed: 1,
  instructions: 'calm',
  stream_format: 'audio',
};
const OPENAI_SPEECH_TYPES: Record<string, 'string' | 'number'> = {
  model: 'string',
  input: 'string',
  voice: 'string',
  response_format: 'string',
  speed: 'number',
  instructions: 'string',
  stream_format: 'string',
};

/**
 * The OpenAI dialect under /v1 (docs/compatibility.md; the harness sends the key as Bearer there):
 * wrong types and odd values for every speech field, malformed and non-object JSON, a form body,
 * every format and stream format (opus and aac through ffmpeg), and the multipart faults and field
 * values of the STT endpoints on /audio/transcriptions and /audio/translations. The answer's
 * error body is OpenAI's shape for the table's entry (check.ts); never a 5xx or a stall.
 */
function openAiCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const speech = (name: string, body: Buffer, opts: Partial<HostileCase> = {}) =>
    out.push(post(`${OPENAI_SPEECH} ${name}`, 'openai', OPENAI_SPEECH, body, opts));
  for (const [field, type] of Object.entries(OPENAI_SPEECH_TYPES)) {
    const required = ['model', 'input', 'voice'].includes(field);
    for (const [n, v] of wrongTypes(type)) {
      // null is "not given": a required field missing (400), an optional one its default (200).
      // speed takes any JSON value to the schema and is checked by the dialect (a string is 400 too).
      const expect = n === 'null' && !required ? { status: [200] } : badRequest;
      speech(`${field}: ${n}`, rawJsonWith(OPENAI_SPEECH_BASE, field, v), { expect });
    }
    for (const [n, v] of oddValues(type)) speech(`${field}: ${n}`, rawJsonWith(OPENAI_SPEECH_BASE, field, v));
  }
  for (const v of ['0.2', '4.01', '-1', '1e308', '"fast"', '"1"'])
    speech(`speed ${v}`, rawJsonWith(OPENAI_SPEECH_BASE, 'speed', v), {
      expect: { status: [400], code: ['INVALID_SPEED', 'INVALID_REQUEST'] },
    });
  for (const v of ['"mp4"', '"OPUS"', '"ogg"', '""'])
    speech(`response_format ${v}`, rawJsonWith(OPENAI_SPEECH_BASE, 'response_format', v), { expect: badRequest });
  for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']) {
    for (const stream_format of ['audio', 'sse'])
      speech(`valid ${format} ${stream_format}`, jsonBody({ ...OPENAI_SPEECH_BASE, response_format: format, stream_format }), {
        expect: { status: [200] },
      });
    speech(`valid ${format}, 0 credits`, jsonBody({ ...OPENAI_SPEECH_BASE, response_format: format }), {
      who: 'broke',
      expect: { status: [402], code: ['INSUFFICIENT_CREDITS'] },
    });
  }
  speech('voice as an object {id}', jsonBody({ ...OPENAI_SPEECH_BASE, voice: { id: 'alloy' } }), { expect: badRequest });
  speech('input of 4,097 characters', jsonBody({ ...OPENAI_SPEECH_BASE, input: 'x'.repeat(4097) }), { expect: badRequest });
  speech('input of control characters and a lone surrogate', jsonBody({ ...OPENAI_SPEECH_BASE, input: '\u0000\u0007\ud800' }));
  speech('unknown voice', jsonBody({ ...OPENAI_SPEECH_BASE, voice: 'nobody' }), { expect: { status: [400] } });
  speech('unknown model', jsonBody({ ...OPENAI_SPEECH_BASE, model: 'tts-9' }), { expect: { status: [400], code: ['INVALID_MODEL'] } });
  speech('malformed JSON', raw('{"model": "tts-1", "input": '), { expect: { status: [400], code: ['INVALID_REQUEST'] } });
  speech('empty body', Buffer.alloc(0), { expect: badRequest });
  speech('body is an array', raw('[1,2,3]'), { expect: badRequest });
  speech('body is a string', raw('"just a string"'), { expect: badRequest });
  speech('deep JSON', raw(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`), { expect: clientError() });
  speech('form body', raw('model=tts-1&input=hi&voice=alloy'), {
    headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    expect: clientError(),
  });
  speech('multipart body', raw('--b\r\nContent-Disposition: form-data; name="input"\r\n\r\nhi\r\n--b--\r\n'), {
    headers: [['Content-Type', 'multipart/form-data; boundary=b']],
    expect: clientError(),
  });
  speech('no key', jsonBody(OPENAI_SPEECH_BASE), { who: 'none', expect: { status: [401], code: ['AUTH_MISSING_API_KEY'] } });
  speech('unknown key', jsonBody(OPENAI_SPEECH_BASE), { who: 'bad-key', expect: { status: [401], code: ['AUTH_INVALID_API_KEY'] } });
  for (const h of [`Basic x`, 'Bearer ', `Bearer ${'k'.repeat(10_000)}`, 'Token x']) {
    out.push({
      name: `GET /v1/models Authorization ${h.slice(0, 12)}... (${h.length} characters)`,
      group: 'openai',
      who: 'none',
      method: 'GET',
      path: '/v1/models',
      headers: [['Authorization', h]],
      expect: { status: [401] },
    });
  }

  const file = silenceWav(0.3);
  const DIARIZE = { model: 'gpt-4o-transcribe-diarize', response_format: 'diarized_json' };
  for (const path of OPENAI_UPLOAD_PATHS) {
    const mp = (name: string, parts: MultipartPart[], opts: Partial<HostileCase> = {}) => {
      const { body, contentType } = multipartBody(parts);
      out.push({
        name: `${path} ${name}`,
        group: 'openai',
        who: 'rich',
        method: 'POST',
        path,
        headers: [['Content-Type', contentType]],
        body,
        ...opts,
      });
    };
    const withFile = (fields: Record<string, string>): MultipartPart[] => [
      { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file },
      ...Object.entries(fields).map(([name, v]) => ({ name, data: Buffer.from(v) })),
    ];
    const badFields: Array<Record<string, string>> = [
      { model: 'whisper-2' },
      { model: '' },
      { model: 'x'.repeat(5000) },
      { model: 'whisper-1', response_format: 'docx' },
      { model: 'whisper-1', response_format: 'json', 'timestamp_granularities[]': 'word' },
      { model: 'whisper-1', response_format: 'verbose_json', 'timestamp_granularities[]': 'sentence' },
      { model: 'whisper-1', language: 'xx-not-a-language' },
      { model: 'whisper-1', stream: '1e9' },
      { model: 'whisper-1', prompt: 'p'.repeat(20_000) },
      // known_speaker_names[] / known_speaker_references[] (decision #50): only the references may
      // pass 16 KiB, each up to its cap; their audio goes through the bounded decoder.
      { ...DIARIZE, 'known_speaker_names[]': 'a', 'known_speaker_references[]': `data:audio/wav;base64,${'A'.repeat(3_000_000)}` },
      {
        ...DIARIZE,
        'known_speaker_names[]': 'a',
        'known_speaker_references[]': `data:audio/wav;base64,${silenceWav(60).toString('base64')}`,
      },
      {
        ...DIARIZE,
        'known_speaker_names[]': 'a',
        'known_speaker_references[]': `data:audio/wav;base64,${Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVEfmt ').toString('base64')}`,
      },
      { ...DIARIZE, 'known_speaker_names[]': 'a'.repeat(17_000), 'known_speaker_references[]': 'data:,' },
      { ...DIARIZE, 'known_speaker_references[]': 'javascript:alert(1)' },
    ];
    for (const fields of badFields) mp(JSON.stringify(fields).slice(0, 80), withFile(fields), { expect: clientError() });
    // A field OpenAI has and Parla does not read: only the invariant.
    mp('temperature "hot"', withFile({ model: 'whisper-1', temperature: 'hot' }));
    mp('no model', withFile({}), { expect: { status: [400] } });
    mp('no file', [{ name: 'model', data: Buffer.from('whisper-1') }], { expect: { status: [400] } });
    mp(
      'not audio',
      [
        { name: 'file', filename: 'a.wav', data: raw('this is not audio') },
        { name: 'model', data: Buffer.from('whisper-1') },
      ],
      { expect: clientError() },
    );
    mp('valid upload, 0 credits', withFile({ model: 'whisper-1' }), { who: 'broke', expect: { status: [400, 402] } });
    const good = multipartBody(withFile({ model: 'whisper-1' }));
    const at = (name: string, contentType: string | null, body: Buffer, expect: CaseExpect = clientError()) =>
      out.push({
        name: `${path} multipart: ${name}`,
        group: 'openai',
        who: 'rich',
        method: 'POST',
        path,
        headers: contentType === null ? [] : [['Content-Type', contentType]],
        body,
        expect,
      });
    at('no boundary', 'multipart/form-data', good.body);
    at('truncated mid-part', good.contentType, good.body.subarray(0, Math.floor(good.body.length / 2)));
    at('broken part header', 'multipart/form-data; boundary=b', raw('--b\r\nbroken header\r\n\r\nx\r\n--b--'));
    at('boundary over 256 characters', `multipart/form-data; boundary=${'z'.repeat(300)}`, raw('no boundary here'));
    at('JSON body', 'application/json', raw('{"file":"x","model":"whisper-1"}'));
    at('raw octet-stream body', 'application/octet-stream', Buffer.alloc(100, 1));
    at('no Content-Type', null, file);
    // (Translations are refused before the body is read when nothing translates: 400.)
    // Over what the body may hold: 25 MB of file, 1 MiB of fields and, on transcriptions, the four
    // known speakers' references (about 10 MB).
    at('lying Content-Length (40 MB declared)', good.contentType, good.body, {
      status: path.endsWith('/translations') ? [400, 413] : [413],
    });
    out[out.length - 1]!.contentLength = 40 * 1024 * 1024;
    at('no key', good.contentType, good.body, { status: [401], code: ['AUTH_MISSING_API_KEY'] });
    out[out.length - 1]!.who = 'none';
  }
  // Transcription on the default install is served; translation is refused (no model translates).
  const valid = multipartBody([
    { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file },
    { name: 'model', data: Buffer.from('whisper-1') },
  ]);
  out.push({
    name: '/v1/audio/transcriptions valid upload',
    group: 'openai',
    who: 'rich',
    method: 'POST',
    path: '/v1/audio/transcriptions',
    headers: [['Content-Type', valid.contentType]],
    body: valid.body,
    expect: { status: [200] },
  });
  out.push({
    name: '/v1/audio/translations valid upload, nothing translates here',
    group: 'openai',
    who: 'rich',
    method: 'POST',
    path: '/v1/audio/translations',
    headers: [['Content-Type', valid.contentType]],
    body: valid.body,
    expect: { status: [400], code: ['INVALID_REQUEST'] },
  });
  for (const [method, path] of [
    ['GET', OPENAI_SPEECH],
    ['DELETE', '/v1/models'],
    ['PUT', '/v1/audio/transcriptions'],
    ['GET', '/v1/chat/completions'],
    ['GET', `/v1/${'a'.repeat(3000)}`],
    ['POST', '/v1/audio/speech/../../api/v1/usage'],
  ] as const) {
    out.push({ name: `${method} ${path.slice(0, 60)}`, group: 'openai', who: 'rich', method, path, expect: { status: [404, 400] } });
  }
  return out;
}

/** Names an object literal inherits: a lookup table keyed by client input must not find them (issue 30, item 9). */
export const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

/** An answer that repeats no JavaScript source (a function found in a table and printed). */
const NO_SOURCE: CaseExpect['check'] = (res) =>
  /native code|function [A-Za-z]*\(/.test(res.body.toString('utf8'))
    ? `JavaScript source in the answer: ${res.body.subarray(0, 200).toString('utf8')}`
    : null;

/**
 * Both dialects under /v1 (issue 30, items 9 and 10; issue 28, items 1, 4, 6): prototype keys as
 * every id, voice and language on OpenAI's and Deepgram's routes, repeated query parameters,
 * methods and paths of Deepgram's, a malformed URL under /v1, and text with angle brackets, which
 * the compatible doors speak (plain text), never refuse. Each answer is checked in its dialect's
 * shape (check.ts: Deepgram's paths and Token keys get Deepgram's body).
 */
function dialectCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const add = (c: Omit<HostileCase, 'group'>) => out.push({ group: 'dialects', ...c });
  const speak = '/v1/speak';
  for (const k of PROTOTYPE_KEYS) {
    add({
      name: `${OPENAI_SPEECH} voice ${k}`,
      who: 'rich',
      method: 'POST',
      path: OPENAI_SPEECH,
      headers: [JSON_CT],
      body: jsonBody({ ...OPENAI_SPEECH_BASE, voice: k }),
      expect: { status: [400], code: ['INVALID_VOICE'], check: NO_SOURCE },
    });
    add({
      name: `${OPENAI_SPEECH} model ${k}`,
      who: 'rich',
      method: 'POST',
      path: OPENAI_SPEECH,
      headers: [JSON_CT],
      body: jsonBody({ ...OPENAI_SPEECH_BASE, model: k }),
      expect: { status: [400], code: ['INVALID_MODEL'], check: NO_SOURCE },
    });
    const up = multipartBody([
      { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: silenceWav(0.3) },
      { name: 'model', data: Buffer.from(k) },
    ]);
    add({
      name: `/v1/audio/transcriptions model ${k}`,
      who: 'rich',
      method: 'POST',
      path: '/v1/audio/transcriptions',
      headers: [['Content-Type', up.contentType]],
      body: up.body,
      expect: { status: [400], code: ['INVALID_MODEL'], check: NO_SOURCE },
    });
    const lang = multipartBody([
      { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: silenceWav(0.3) },
      { name: 'model', data: Buffer.from('whisper-1') },
      { name: 'language', data: Buffer.from(k) },
    ]);
    add({
      name: `/v1/audio/transcriptions language ${k}`,
      who: 'rich',
      method: 'POST',
      path: '/v1/audio/transcriptions',
      headers: [['Content-Type', lang.contentType]],
      body: lang.body,
      expect: { status: [400], check: NO_SOURCE },
    });
    for (const model of [`aura-2-${k}-en`, `aura-${k}-en`, k, `aura-max:${k}`, `${k}:Aria`]) {
      add({
        name: `${speak} model=${model}`,
        who: 'rich',
        method: 'POST',
        path: `${speak}?model=${encodeURIComponent(model)}&encoding=linear16`,
        headers: [JSON_CT],
        body: jsonBody({ text: 'Hi.' }),
        expect: { status: [400], check: NO_SOURCE },
      });
    }
    for (const q of [`model=${k}`, `language=${k}`]) {
      add({
        name: `POST /v1/listen?${q}`,
        who: 'rich',
        method: 'POST',
        path: `/v1/listen?${q}`,
        headers: [['Content-Type', 'audio/wav']],
        body: silenceWav(0.3),
        expect: { status: [400], check: NO_SOURCE },
      });
    }
    // An encoding other than linear16 on prerecorded audio is sniffed from the bytes (docs/compatibility.md).
    add({
      name: `POST /v1/listen?encoding=${k}`,
      who: 'rich',
      method: 'POST',
      path: `/v1/listen?encoding=${k}`,
      headers: [['Content-Type', 'audio/wav']],
      body: silenceWav(0.3),
      expect: { check: NO_SOURCE },
    });
    add({
      name: `${speak} ?${k}=1`,
      who: 'rich',
      method: 'POST',
      path: `${speak}?${k}=1&encoding=linear16`,
      headers: [JSON_CT],
      body: jsonBody({ text: 'Hi.' }),
      expect: { status: [200] },
    });
  }
  // Repeated parameters: one value twice is that value; two different values are 400 naming it.
  for (const p of [
    'model=aura-2-thalia-en&model=aura-2-orion-en',
    'encoding=linear16&encoding=mp3',
    'sample_rate=8000&sample_rate=16000',
    'speed=1&speed=2',
    'container=wav&container=none',
    'model=a&model=b',
  ]) {
    add({
      name: `${speak}?${p}`,
      who: 'rich',
      method: 'POST',
      path: `${speak}?${p}`,
      headers: [JSON_CT],
      body: jsonBody({ text: 'Hi.' }),
      expect: { status: [400], check: NO_SOURCE },
    });
  }
  add({
    name: `${speak} the same model twice`,
    who: 'rich',
    method: 'POST',
    path: `${speak}?model=aura-2-thalia-en&model=aura-2-thalia-en&encoding=linear16`,
    headers: [JSON_CT],
    body: jsonBody({ text: 'Hi.' }),
    expect: { status: [200] },
  });
  add({
    name: `${speak} model[]= array syntax`,
    who: 'rich',
    method: 'POST',
    path: `${speak}?model[]=aura-2-thalia-en&encoding=linear16`,
    headers: [JSON_CT],
    body: jsonBody({ text: 'Hi.' }),
    expect: { status: [200] },
  });
  // Deepgram's paths answer in Deepgram's shape, whatever the method (issue 30, item 10).
  for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
    for (const path of [speak, '/v1/listen', '/v1/projects', '/v1/read'])
      add({ name: `${m} ${path}`, who: 'rich', method: m, path, expect: { status: [404] } });
  }
  add({
    name: 'GET /v1/models/%ED%A0%80 (a lone surrogate, Bearer)',
    who: 'rich',
    method: 'GET',
    path: '/v1/models/%ED%A0%80',
    expect: { status: [400, 404] },
  });
  add({ name: 'GET /v1/models/%ZZ', who: 'rich', method: 'GET', path: '/v1/models/%ZZ', expect: { status: [400] } });
  add({
    name: 'GET /v1/models/%ED%A0%80 with a Token key',
    who: 'none',
    method: 'GET',
    path: '/v1/models/%ED%A0%80',
    headers: [['Authorization', 'Token svc_live_0000000000000000000000000000000000000000']],
    expect: { status: [400, 401, 404] },
  });
  add({ name: 'GET /v1/speak/%ZZ', who: 'rich', method: 'GET', path: '/v1/speak/%ZZ', expect: { status: [400] } });
  add({
    name: 'GET /v1/nothing with a Token key',
    who: 'none',
    method: 'GET',
    path: '/v1/nothing',
    headers: [['Authorization', 'Token x']],
    expect: { status: [404] },
  });
  // Deepgram's callback (issue 28): a URL the safe fetcher refuses, a name that resolves inside, a
  // bad callback_method, no credits: refused at once in Deepgram's shape, nothing queued.
  const HOOK = 'callback=http://93.184.216.34/hook';
  const WAV: [string, string] = ['Content-Type', 'audio/wav'];
  /** One POST /v1/listen with a callback: audio (a short WAV) or a {url} body. */
  const callbackCase = (name: string, who: Who, query: string, body: 'wav' | 'url' | 'none' | Buffer, status: number) =>
    add({
      name: `POST /v1/listen ${name}`,
      who,
      method: 'POST',
      path: `/v1/listen?model=nova-3&${query}`,
      headers: [Buffer.isBuffer(body) ? ['Content-Type', 'application/octet-stream'] : body === 'url' ? JSON_CT : WAV],
      body:
        body === 'wav'
          ? silenceWav(0.3)
          : body === 'url'
            ? jsonBody({ url: 'http://93.184.216.34/a.wav' })
            : body === 'none'
              ? undefined
              : body,
      expect: status === 200 ? { status: [200] } : { status: [status], check: NO_SOURCE },
    });
  for (const bad of [
    'file:///etc/passwd',
    'ftp://example.com/',
    'javascript:alert(1)',
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:5432/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0x7f000001/',
    'http://10.0.0.1/',
    'http://localhost/hook',
    'http://',
    'not a url',
    'http://%ZZ@example.com/',
    `https://example.com/${'a'.repeat(2500)}`,
  ]) {
    const query = `callback=${encodeURIComponent(bad)}`;
    callbackCase(`callback=${JSON.stringify(bad.slice(0, 40))}`, 'rich', query, 'wav', 400);
    callbackCase(`{url} callback=${JSON.stringify(bad.slice(0, 40))}`, 'rich', query, 'url', 400);
  }
  for (const m of ['get', 'DELETE', 'p%00st', 'post&callback_method=put', 'x'.repeat(3000)])
    callbackCase(`callback_method=${m.slice(0, 20)}`, 'rich', `${HOOK}&callback_method=${m}`, 'wav', 400);
  callbackCase('callback twice, two URLs', 'rich', 'callback=http://93.184.216.34/a&callback=http://93.184.216.34/b', 'wav', 400);
  callbackCase('callback, no credits', 'broke', HOOK, 'wav', 402);
  callbackCase('{url} callback, no credits', 'broke', HOOK, 'url', 402);
  callbackCase('callback, no audio', 'rich', HOOK, 'none', 400);
  add({
    name: 'POST /v1/listen callback, {url} not a URL',
    who: 'rich',
    method: 'POST',
    path: `/v1/listen?model=nova-3&${HOOK}`,
    headers: [JSON_CT],
    body: jsonBody({ url: 'http://10.0.0.1/a.wav' }),
    expect: { status: [400], check: NO_SOURCE },
  });
  callbackCase('callback, linear16 without sample_rate', 'rich', `${HOOK}&encoding=linear16`, Buffer.alloc(3200), 400);
  // Accepted (answered {request_id}; the job waits, no runner here): a public address, PUT.
  callbackCase('callback accepted', 'rich', `${HOOK}&callback_method=put`, 'wav', 200);
  // Plain text on the compatible doors (issue 28, item 1): spoken, never refused.
  for (const text of [
    'Compare a<b and c>d.',
    'Use the <div> element here.',
    '<think>x</think>y',
    '<speak>Hi <break time="1s"/></speak>',
    '<whisper>open',
    '<',
    '<<>>',
    '<a b="'.repeat(50),
    '<x y=1 '.repeat(40),
  ]) {
    add({
      name: `${OPENAI_SPEECH} input ${JSON.stringify(text.slice(0, 30))}`,
      who: 'rich',
      method: 'POST',
      path: OPENAI_SPEECH,
      headers: [JSON_CT],
      body: jsonBody({ ...OPENAI_SPEECH_BASE, input: text }),
      expect: { status: [200] },
    });
    add({
      name: `${speak} text ${JSON.stringify(text.slice(0, 30))}`,
      who: 'rich',
      method: 'POST',
      path: `${speak}?encoding=linear16`,
      headers: [JSON_CT],
      body: jsonBody({ text }),
      expect: { status: [200] },
    });
  }
  return out;
}

export const JOBS = '/api/v1/stt/jobs';

/**
 * The jobs endpoints (issue 23): Idempotency-Key abuse, URLs the fetcher must refuse at the edge
 * (other schemes, credentials, internal addresses written as IP literals, absurd lengths), wrong
 * types, list paging abuse, odd ids, an oversize declared upload. Nothing here may make a job.
 */
function jobCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const group = 'jobs';
  const job = (name: string, body: unknown, opts: Partial<HostileCase> = {}) =>
    out.push(post(`jobs: ${name}`, group, JOBS, typeof body === 'string' ? raw(body) : jsonBody(body), opts));
  const get = (name: string, path: string, opts: Partial<HostileCase> = {}) =>
    out.push({ name: `jobs: ${name}`, group, who: 'rich', method: 'GET', path, ...opts });
  const notAllowed: CaseExpect = { status: [400], code: ['URL_NOT_ALLOWED', 'INVALID_PARAMETER'] };
  const url = 'https://example.com/a.wav';
  for (const [i, bad] of [
    'file:///etc/passwd',
    'gopher://example.com/',
    'javascript:alert(1)',
    'data:audio/wav;base64,UklGRg==',
    'http://user:password@example.com/a.wav',
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:5432/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://10.0.0.1/',
    `https://example.com/${'a'.repeat(5000)}`,
    'http://',
    'not a url',
    'http://exa mple.com/',
  ].entries()) {
    job(`url #${i + 1}`, { url: bad }, { expect: notAllowed });
    job(`callback_url #${i + 1}`, { url, callback_url: bad }, { expect: notAllowed });
  }
  // Well-formed once the URL parser normalized them (empty credentials dropped, NUL percent-encoded;
  // a label over 63 characters parses): taken at the edge, refused when fetched (the job fails).
  for (const [i, odd] of ['http://:@example.com/a.wav', 'http://example.com/\u0000', `https://${'a'.repeat(300)}.com/`].entries()) {
    job(`url normalized #${i + 1}`, { url: odd }, { expect: { status: [202] } });
  }
  // Issue 30: a NUL (or a lone surrogate) in free text answered 500 on PostgreSQL; it is cleaned
  // like the native endpoints clean text, a URL is stored as the parser normalized it.
  for (const [i, body] of [
    { url, prompt: 'a\u0000b' },
    { url, prompt: '\ud800\u0000' },
    { url, keywords: 'fox\u0000,dog' },
    { url, keywords: ['\u0000', 'x\udc00'] },
    { url: `${url}\u0000` },
    { url, callback_url: 'https://example.com/hook\u0000\ud800' },
  ].entries()) {
    job(`NUL in text #${i + 1}`, body, { expect: { status: [202] } });
  }
  job('NUL in language', { url, language: 'en\u0000' }, { expect: badRequest });
  job('url of 1 MB', { url: `https://example.com/${'a'.repeat(1024 * 1024)}` }, { expect: notAllowed });
  for (const [i, v] of [5, true, ['a'], { u: 1 }, [url, url]].entries())
    job(
      `url of a wrong type #${i + 1}`,
      { url: v },
      { expect: { status: [400], code: ['URL_NOT_ALLOWED', 'INVALID_PARAMETER', 'MISSING_FILE'] } },
    );
  for (const [i, v] of [[], 'x', null, 5].entries()) job(`JSON body not an object #${i + 1}`, JSON.stringify(v), { expect: clientError() });
  job('no url, no file', {}, { expect: { status: [400], code: ['MISSING_FILE'] } });
  job('zero_retention not a boolean', { url, zero_retention: 'maybe' }, { expect: badRequest });
  job('0 credits', { url }, { who: 'broke', expect: { status: [402], code: ['INSUFFICIENT_CREDITS'] } });
  job('no key', { url }, { who: 'none', expect: { status: [401] } });
  for (const [i, key] of ['', ' ', 'x'.repeat(256), 'has space', 'tab\there', '\u00e9t\u00e9', 'a\u007f'].entries()) {
    job(
      `Idempotency-Key #${i + 1}`,
      { url },
      { headers: [JSON_CT, ['Idempotency-Key', key]], expect: { status: [400], code: ['INVALID_PARAMETER', 'INVALID_REQUEST'] } },
    );
  }
  // A valid key: one job, then the same job again (202 both times, never a 5xx).
  job('valid Idempotency-Key', { url }, { headers: [JSON_CT, ['Idempotency-Key', 'hostile-key-1']], expect: { status: [202] } });
  job('valid Idempotency-Key, replayed', { url }, { headers: [JSON_CT, ['Idempotency-Key', 'hostile-key-1']], expect: { status: [202] } });
  job(
    'valid Idempotency-Key, another body',
    { url: `${url}?b` },
    { headers: [JSON_CT, ['Idempotency-Key', 'hostile-key-1']], expect: { status: [409], code: ['IDEMPOTENCY_KEY_REUSED'] } },
  );
  const file = silenceWav(0.3);
  const mp = (name: string, parts: MultipartPart[], opts: Partial<HostileCase> = {}) => {
    const { body, contentType } = multipartBody(parts);
    out.push({
      name: `jobs: ${name}`,
      group,
      who: 'rich',
      method: 'POST',
      path: JOBS,
      headers: [['Content-Type', contentType]],
      body,
      ...opts,
    });
  };
  const wavPart: MultipartPart = { name: 'file', filename: 'a.wav', contentType: 'audio/wav', data: file };
  mp('upload and url both', [wavPart, { name: 'url', data: Buffer.from(url) }], { expect: badRequest });
  mp('empty file', [{ ...wavPart, data: Buffer.alloc(0) }], { expect: { status: [400], code: ['MISSING_FILE'] } });
  mp('bad batch field', [wavPart, { name: 'response_format', data: Buffer.from('xml') }], { expect: badRequest });
  mp('filename of control bytes', [{ ...wavPart, filename: '\u0001\u0002../../etc/passwd' }]);
  const { body: small, contentType } = multipartBody([wavPart]);
  out.push({
    name: 'jobs: declared upload of 2 GiB',
    group,
    who: 'rich',
    method: 'POST',
    path: JOBS,
    headers: [['Content-Type', contentType]],
    body: small,
    contentLength: 2 * 1024 ** 3,
    expect: { status: [413], code: ['FILE_TOO_LARGE'] },
  });
  out.push({
    name: 'jobs: truncated multipart',
    group,
    who: 'rich',
    method: 'POST',
    path: JOBS,
    headers: [['Content-Type', contentType]],
    body: small.subarray(0, small.length >> 1),
    expect: { status: [400] },
  });
  out.push({
    name: 'jobs: raw audio body',
    group,
    who: 'rich',
    method: 'POST',
    path: JOBS,
    headers: [['Content-Type', 'audio/wav']],
    body: file,
    expect: clientError(),
  });
  for (const [i, q] of [
    'cursor=nonsense',
    `cursor=${'A'.repeat(300)}`,
    'cursor=%00',
    `cursor=${Buffer.from('1:job_x').toString('base64url')}`,
    `cursor=${Buffer.from('99999999999999999999:job_AAAAAAAAAAAAAAAAAAAA').toString('base64url')}`,
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=-1',
    'limit=1e3',
    'status=bogus',
    'status=queued&status=failed',
  ].entries()) {
    get(`list #${i + 1}`, `${JOBS}?${q}`, { expect: { status: [400] } });
  }
  get('list, valid', `${JOBS}?limit=2&status=queued`, { expect: { status: [200] } });
  for (const [i, id] of [
    'job_AAAAAAAAAAAAAAAAAAAA',
    'job_',
    '..%2F..%2Fetc%2Fpasswd',
    'job_%00AAAAAAAAAAAAAAAAAAA',
    'x'.repeat(2000),
    '%E2%80%AE',
    'job_AAAAAAAAAAAAAAAAAAAA%2Fresult',
  ].entries()) {
    get(`id #${i + 1}`, `${JOBS}/${id}`, { expect: { status: [400, 404] } });
    get(`result of id #${i + 1}`, `${JOBS}/${id}/result`, { expect: { status: [400, 404] } });
    out.push({
      name: `jobs: DELETE id #${i + 1}`,
      group,
      who: 'rich',
      method: 'DELETE',
      path: `${JOBS}/${id}`,
      expect: { status: [400, 404] },
    });
  }
  return out;
}

function audioHeaderCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const pcm = Buffer.alloc(16000); // 0.5 s of 16 kHz silence
  const files: Array<[string, Buffer]> = [
    ['WAV data size bigger than the file', wav({ dataSize: 10_000_000, pcm })],
    ['WAV RIFF size 0xFFFFFFFF', wav({ riffSize: 0xffffffff, pcm })],
    ['WAV data size 0xFFFFFFFF', wav({ dataSize: 0xffffffff, pcm })],
    ['WAV zero channels', wav({ channels: 0, pcm })],
    ['WAV 65535 channels', wav({ channels: 65535, pcm })],
    ['WAV sample rate 0', wav({ sampleRate: 0, pcm })],
    ['WAV sample rate 4 GHz', wav({ sampleRate: 0xffffffff, pcm })],
    ['WAV 0 bits per sample', wav({ bits: 0, pcm })],
    ['WAV 7 bits per sample', wav({ bits: 7, pcm })],
    ['WAV unknown format tag', wav({ format: 0x1234, pcm })],
    ['WAV fmt chunk size 0xFFFFFFFF', wav({ fmtSize: 0xffffffff, pcm })],
    ['WAV empty data', wav({ pcm: Buffer.alloc(0) })],
    ['WAV odd byte count', wav({ pcm: Buffer.alloc(16001) })],
    ['WAV header only, truncated', wav({ pcm }).subarray(0, 30)],
    ['RIFF magic only', raw('RIFF')],
    ['MP3 ID3 magic and junk', Buffer.concat([raw('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000'), junk(4000)])],
    ['MP3 frame sync and junk', Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), junk(4000)])],
    ['Ogg magic and junk', Buffer.concat([raw('OggS\u0000\u0002'), junk(4000)])],
    ['FLAC magic and junk', Buffer.concat([raw('fLaC'), junk(4000)])],
    ['WebM magic and junk', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), junk(4000)])],
    ['M4A ftyp and junk', Buffer.concat([Buffer.from([0, 0, 0, 0x20]), raw('ftypM4A '), junk(4000)])],
    ['one byte', Buffer.from([0])],
    ['64 KB of random bytes', junk(65_536)],
    ['text file', raw('hello, this is not audio\n'.repeat(100))],
  ];
  for (const [name, data] of files) {
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'x.wav', contentType: 'audio/wav', data }]);
    out.push({
      name: `audio: ${name}`,
      group: 'audio headers',
      who: 'rich',
      method: 'POST',
      path: STT_PATHS[0],
      headers: [['Content-Type', contentType]],
      body,
    });
  }
  const { body, contentType } = multipartBody([{ name: 'file', filename: 'x.wav', contentType: 'audio/wav', data: Buffer.alloc(0) }]);
  out.push({
    name: 'audio: empty file',
    group: 'audio headers',
    who: 'rich',
    method: 'POST',
    path: STT_PATHS[0],
    headers: [['Content-Type', contentType]],
    body,
    expect: { status: [400], code: ['MISSING_FILE'] },
  });
  return out;
}

/** Deterministic junk (a fixed LCG), so every run sends the same bytes. */
export function junk(n: number, seed = 19): Buffer {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

const NOT_PACKAGE_JSON: CaseExpect['check'] = (res) =>
  /"dependencies"|"devDependencies"|root:x:0:0/.test(res.body.toString('latin1')) ? 'served a file from outside the built page' : null;

function methodAndPathCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const get = (name: string, path: string, opts: Partial<HostileCase> = {}) =>
    out.push({ name, group: 'methods and paths', who: 'rich', method: 'GET', path, ...opts });
  // Defect 6: odd dashboard paths (sent as is: no client-side normalization).
  for (const p of [
    '/dashboard/../package.json',
    '/dashboard/%2e%2e',
    '/dashboard/..%2f..%2fpackage.json',
    '/dashboard/assets/a%00.js',
    '/dashboard/%2e%2e/%2e%2e/package.json',
    '/dashboard/assets/..%5c..%5cpackage.json',
    '/dashboard/assets/%c0%ae%c0%ae/package.json',
    '/dashboard/assets/../../../../etc/passwd',
    '/dashboard/.stamp',
    '/dashboard/assets/%2fetc%2fpasswd',
    '/dashboard//etc/passwd',
    '/dashboard/assets/x.js%00.html',
  ]) {
    get(`dashboard path ${p}`, p, { issue: 6, who: 'none', expect: { check: NOT_PACKAGE_JSON } });
  }
  // Defect 7: methods Node's parser or the router does not know; bad percent-encoding.
  for (const m of ['CONNECT_X', 'PROPFIND', 'TRACE', 'FOO', 'get', 'M-SEARCH', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD']) {
    get(`method ${m} /api/v1/models`, '/api/v1/models', {
      issue: 7,
      method: m,
      expect: m === 'HEAD' ? {} : { not2xx: m !== 'OPTIONS' && m !== 'HEAD' },
    });
  }
  get('method DELETE /api/v1/tts/generate', GENERATE, { method: 'DELETE', expect: { status: [404, 405] } });
  get('method GET /api/v1/tts/generate', GENERATE, { expect: { status: [404, 405] } });
  get('CONNECT host:port', '127.0.0.1:1', { method: 'CONNECT', issue: 7 });
  for (const p of [
    '/dashboard/assets/%ZZ',
    '/api/v1/voices?model=%ZZ',
    '/api/v1/%',
    '/api/v1/models%',
    '/%ZZ/../api',
    '/api/v1/voices/%E0%A4%A/preview',
    '/api/v1/models?%=%',
  ]) {
    get(`bad percent-encoding ${p}`, p, { issue: 7, expect: { not2xx: !p.includes('models?') } });
  }
  get('NUL in path', '/api/v1/models\u0000', { issue: 7 });
  get('space in path', '/api/v1/mod els', { issue: 7 });
  get('absolute-form URL', 'http://evil.example/api/v1/models');
  get('asterisk path', '*', { expect: { not2xx: true } });
  get('double slash', '//api/v1/models');
  get('dot segments', '/api/v1/./../v1/models');
  get('URL of 100 KB', '/api/v1/models?x=' + 'a'.repeat(100_000), { expect: { not2xx: true } });
  get('path of 100 KB', '/' + 'a/'.repeat(50_000), { expect: { not2xx: true } });
  get('4,000 query parameters', '/api/v1/voices?' + Array.from({ length: 4000 }, (_, i) => `p${i}=1`).join('&'));
  get('repeated model parameter', '/api/v1/voices?model=aura-prime&model=aura-lite');
  get('array-style parameter', '/api/v1/voices?model[]=aura-prime&language[x]=en');
  get('prototype parameter', '/api/v1/voices?__proto__[model]=x&constructor[prototype][x]=1');
  get('voices: unknown model', '/api/v1/voices?model=nope', { expect: { status: [400] } });
  get('voices: language of 36 chars', '/api/v1/voices?language=' + 'x'.repeat(36), { expect: { status: [400] } });
  get('voices: bad gender', '/api/v1/voices?gender=other', { expect: { status: [400] } });
  get('languages: unknown model', '/api/v1/languages?model=nope', { expect: { status: [400] } });
  get('preview: voice of 65 chars', '/api/v1/voices/' + 'a'.repeat(65) + '/preview', { who: 'none', expect: { not2xx: true } });
  get('preview: NUL voice', '/api/v1/voices/%00/preview', { who: 'none', expect: { not2xx: true } });
  get('preview: dot-dot voice', '/api/v1/voices/..%2f..%2fpackage.json/preview', {
    who: 'none',
    expect: { not2xx: true, check: NOT_PACKAGE_JSON },
  });
  get('preview: unknown model', '/api/v1/voices/Aria/preview?model=nope', { who: 'none', expect: { status: [400] } });
  get('usage without key', '/api/v1/usage', { who: 'none', expect: { status: [401] } });
  get('credits with unknown key', '/api/v1/user/credits', { who: 'bad-key', expect: { status: [401] } });
  get('openapi.json with 10,000 params', '/openapi.json?' + 'a=1&'.repeat(3000));
  get('health with junk query', '/health?%ff%fe=%00');
  get('realtime port path on the API port', '/api/v1/stt/realtime/stream', { expect: { status: [404] } });
  return out;
}

function headerCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const models = (name: string, headers: Array<[string, string]>, opts: Partial<HostileCase> = {}) =>
    out.push({ name, group: 'headers', who: 'none', method: 'GET', path: '/api/v1/models', headers, ...opts });
  models('X-API-Key of 8 KB', [['X-API-Key', 'svc_live_' + 'a'.repeat(8000)]], { expect: { status: [401] } });
  models('X-API-Key of 100 KB', [['X-API-Key', 'a'.repeat(100_000)]], { expect: { not2xx: true } });
  models('X-API-Key with latin-1 bytes', [['X-API-Key', 'svc_live_\u00ff\u00fe']], { expect: { status: [401] } });
  models('X-API-Key with spaces', [['X-API-Key', '   ']], { expect: { status: [401] } });
  models(
    'two X-API-Key headers',
    [
      ['X-API-Key', 'a'],
      ['X-API-Key', 'b'],
    ],
    { expect: { status: [401] } },
  );
  models('Authorization Bearer garbage', [['Authorization', 'Bearer ' + 'x'.repeat(1000)]], { expect: { status: [401] } });
  models(
    '1,000 headers',
    Array.from({ length: 1000 }, (_, i): [string, string] => [`X-H${i}`, 'v']),
    { expect: {} },
  );
  models(
    '3,000 headers',
    Array.from({ length: 3000 }, (_, i): [string, string] => [`X-H${i}`, 'v']),
    { expect: { not2xx: true } },
  );
  models('header without value', [['X-API-Key', '']], { expect: { status: [401] } });
  models('obsolete line folding', [['X-API-Key', 'abc\r\n folded']], { expect: { not2xx: true } });
  models('header name with space', [['X API Key', 'abc']], { expect: { not2xx: true } });
  models('X-Request-ID spoof', [['X-Request-ID', '<script>' + 'x'.repeat(5000)]], {
    expect: {
      status: [401],
      check: (res) => (/script/.test(res.headers['x-request-id'] ?? '') ? 'echoed a client-chosen request id' : null),
    },
  });
  models('X-Forwarded-For garbage', [['X-Forwarded-For', '999.999.999.999, ::g, ' + 'x'.repeat(3000)]], { expect: { status: [401] } });
  models('Host header of 8 KB', [['X-Forwarded-Host', 'h'.repeat(8000)]], { expect: { status: [401] } });
  const gen = (name: string, headers: Array<[string, string]>, body: Buffer, opts: Partial<HostileCase> = {}) =>
    out.push({ name, group: 'headers', who: 'rich', method: 'POST', path: GENERATE, headers, body, ...opts });
  const body = jsonBody(GENERATE_BASE);
  gen('Content-Type text/plain', [['Content-Type', 'text/plain']], body, { expect: { status: [400], code: ['INVALID_REQUEST'] } });
  gen('Content-Type multipart on TTS', [['Content-Type', 'multipart/form-data; boundary=x']], body, { expect: { not2xx: true } });
  gen('Content-Type application/json; charset=latin1', [['Content-Type', 'application/json; charset=latin1']], body);
  gen('Content-Type with junk parameters', [['Content-Type', 'application/json; ' + 'a=b; '.repeat(1000)]], body);
  gen('no Content-Type', [], body, { expect: { not2xx: true } });
  gen('Content-Length smaller than the body', [JSON_CT], body, { contentLength: 5, expect: { not2xx: true } });
  gen('Content-Length not a number', [JSON_CT], body, {
    contentLength: null,
    headers: [JSON_CT, ['Content-Length', 'abc']],
    expect: { not2xx: true },
  });
  gen('Content-Length negative', [JSON_CT], body, {
    contentLength: null,
    headers: [JSON_CT, ['Content-Length', '-1']],
    expect: { not2xx: true },
  });
  gen('Transfer-Encoding chunked and Content-Length', [JSON_CT, ['Transfer-Encoding', 'chunked']], body, { expect: { not2xx: true } });
  gen('bad chunked body', [JSON_CT, ['Transfer-Encoding', 'chunked']], raw('zz\r\nabc\r\n0\r\n\r\n'), {
    contentLength: null,
    expect: { not2xx: true },
  });
  gen(
    'chunked body of many 1-byte chunks',
    [JSON_CT, ['Transfer-Encoding', 'chunked']],
    raw([...JSON.stringify(GENERATE_BASE)].map((c) => `1\r\n${c}\r\n`).join('') + '0\r\n\r\n'),
    { contentLength: null },
  );
  gen('Content-Encoding gzip with junk', [JSON_CT, ['Content-Encoding', 'gzip']], junk(200), { expect: { not2xx: true } });
  gen('body over 2 MB', [JSON_CT], raw(JSON.stringify({ ...GENERATE_BASE, pad: 'x'.repeat(2_200_000) })), {
    expect: { status: [413], code: ['REQUEST_TOO_LARGE'] },
  });
  gen('Expect: 100-continue', [JSON_CT, ['Expect', '100-continue']], body);
  gen('Expect: something else', [JSON_CT, ['Expect', 'teapot']], body, { expect: { status: [400], code: ['INVALID_REQUEST'] } });
  // Dashboard cookie and CSRF abuse.
  const dash = (
    name: string,
    method: string,
    path: string,
    headers: Array<[string, string]>,
    b = Buffer.alloc(0),
    opts: Partial<HostileCase> = {},
  ) => out.push({ name, group: 'headers', who: 'none', method, path, headers, body: b, ...opts });
  dash('dashboard session cookie of 8 KB', 'GET', '/dashboard/api/keys', [['Cookie', 'parla_session=' + 'a'.repeat(8000)]], undefined, {
    expect: { status: [401] },
  });
  dash('dashboard cookie garbage', 'GET', '/dashboard/api/keys', [['Cookie', '=;;==; parla_session; \u00ff=\u00fe']], undefined, {
    expect: { status: [401] },
  });
  dash(
    'dashboard sign-in from another origin',
    'POST',
    '/dashboard/api/session',
    [JSON_CT, ['Origin', 'https://evil.example']],
    jsonBody({ email: 'a@b.c', password: 'x' }),
    { expect: { status: [403] } },
  );
  dash(
    'dashboard sign-in with Origin null',
    'POST',
    '/dashboard/api/session',
    [JSON_CT, ['Origin', 'null']],
    jsonBody({ email: 'a@b.c', password: 'x' }),
    { expect: { status: [403] } },
  );
  dash(
    'dashboard sign-in with a broken Origin',
    'POST',
    '/dashboard/api/session',
    [JSON_CT, ['Origin', 'http://[::1']],
    jsonBody({ email: 'a@b.c', password: 'x' }),
    { expect: { status: [403] } },
  );
  out.push({
    name: 'dashboard new key with a wrong CSRF token',
    group: 'headers',
    who: 'session',
    method: 'POST',
    path: '/dashboard/api/keys',
    headers: [JSON_CT, ['X-CSRF-Token', 'x'.repeat(64)]],
    body: jsonBody({ name: 'k', mode: 'live' }),
    expect: { status: [403], code: ['CSRF_FAILED'] },
  });
  return out;
}

function dashboardFieldCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const bodies: Array<[string, string, Record<string, 'string'>, Record<string, unknown>, Who]> = [
    [
      '/dashboard/api/session',
      'sign-in',
      { email: 'string', password: 'string' },
      { email: 'nobody@example.com', password: 'wrong password' },
      'none',
    ],
    ['/dashboard/api/keys', 'new key', { name: 'string', mode: 'string' }, { name: 'hostile', mode: 'live' }, 'session'],
  ];
  for (const [path, what, types, base, who] of bodies) {
    for (const [field, type] of Object.entries(types)) {
      for (const [n, v] of wrongTypes(type))
        out.push(post(`dashboard ${what} ${field}: ${n}`, 'wrong types', path, rawJsonWith(base, field, v), { who, expect: badRequest }));
      // Sign-in fails for every odd value; a key's name is a label (any text but blank is one).
      for (const [n, v] of oddValues(type))
        out.push(
          post(`dashboard ${what} ${field}: ${n}`, 'odd values', path, rawJsonWith(base, field, v), {
            who,
            expect: who === 'none' || field === 'mode' || n === 'empty string' || n === 'spaces' ? { not2xx: true } : {},
          }),
        );
    }
    out.push(post(`dashboard ${what}: body is an array`, 'wrong types', path, raw('[]'), { who, expect: badRequest }));
    out.push(post(`dashboard ${what}: malformed JSON`, 'wrong types', path, raw('{"'), { who, expect: badRequest }));
  }
  out.push(
    post(
      'dashboard sign-in: email of 300 chars',
      'odd values',
      '/dashboard/api/session',
      jsonBody({ email: 'a'.repeat(290) + '@example.com', password: 'x' }),
      { who: 'none', expect: badRequest },
    ),
  );
  out.push(
    post(
      'dashboard sign-in: password of 1,025 chars',
      'odd values',
      '/dashboard/api/session',
      jsonBody({ email: 'a@example.com', password: 'x'.repeat(1025) }),
      { who: 'none', expect: badRequest },
    ),
  );
  out.push(
    post(
      'dashboard new key: reserved playground name',
      'odd values',
      '/dashboard/api/keys',
      jsonBody({ name: 'DASHBOARD PLAYGROUND', mode: 'live' }),
      { who: 'session', expect: { not2xx: true } },
    ),
  );
  for (const id of ['x'.repeat(101), '%00', '..%2f..%2f', 'key_does_not_exist', '%ZZ']) {
    out.push({
      name: `dashboard revoke key ${id.slice(0, 20)}`,
      group: 'odd values',
      who: 'session',
      method: 'DELETE',
      path: `/dashboard/api/keys/${id}`,
      expect: { not2xx: true },
    });
  }
  for (const q of ['mode=x', 'mode=', 'mode=live&mode=test', 'mode[]=live', 'mode=%00']) {
    out.push({ name: `dashboard usage ?${q}`, group: 'odd values', who: 'session', method: 'GET', path: `/dashboard/api/usage?${q}` });
  }
  // The Jobs page's list and cancel (docs/dashboard.md).
  for (const q of [
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=1e3',
    'limit=x',
    'status=done',
    'status=',
    'status[]=queued',
    'cursor=',
    'cursor=not-a-cursor',
    `cursor=${'A'.repeat(201)}`,
    'cursor=%00',
    'limit=2&limit=3',
  ]) {
    out.push({
      name: `dashboard jobs ?${q.slice(0, 30)}`,
      group: 'odd values',
      who: 'session',
      method: 'GET',
      path: `/dashboard/api/jobs?${q}`,
      expect: q === 'limit=2&limit=3' || q === 'status[]=queued' ? {} : { not2xx: true },
    });
  }
  for (const id of ['x'.repeat(101), '%00', '..%2f..%2f', 'job_AAAAAAAAAAAAAAAAAAAA', 'job_%27%20OR%201=1', '%ZZ']) {
    out.push({
      name: `dashboard cancel job ${id.slice(0, 24)}`,
      group: 'odd values',
      who: 'session',
      method: 'DELETE',
      path: `/dashboard/api/jobs/${id}`,
      expect: { not2xx: true },
    });
  }
  out.push({
    name: 'dashboard cancel job with a wrong CSRF token',
    group: 'headers',
    who: 'session',
    method: 'DELETE',
    path: '/dashboard/api/jobs/job_AAAAAAAAAAAAAAAAAAAA',
    headers: [['X-CSRF-Token', 'x'.repeat(64)]],
    expect: { status: [403], code: ['CSRF_FAILED'] },
  });
  out.push({
    name: 'dashboard jobs without a session',
    group: 'auth',
    who: 'none',
    method: 'GET',
    path: '/dashboard/api/jobs',
    expect: { status: [401], code: ['SESSION_REQUIRED'] },
  });
  out.push({
    name: 'dashboard keys without a session',
    group: 'auth',
    who: 'none',
    method: 'GET',
    path: '/dashboard/api/keys',
    expect: { status: [401], code: ['SESSION_REQUIRED'] },
  });
  out.push({
    name: 'dashboard unknown API path',
    group: 'methods and paths',
    who: 'session',
    method: 'GET',
    path: '/dashboard/api/../api/keys/../../../package.json',
    expect: { check: NOT_PACKAGE_JSON },
  });
  return out;
}

function reproducerExtras(): HostileCase[] {
  return [
    {
      name: 'realtime info of an idle account reports 0 streams in use',
      group: 'reproducers',
      issue: 8,
      who: 'rich',
      method: 'GET',
      path: '/api/v1/stt/realtime/info',
      expect: {
        status: [200],
        check: (res) => {
          const inUse = (JSON.parse(res.body.toString()) as { limits?: { concurrent_in_use?: unknown } }).limits?.concurrent_in_use;
          return inUse === 0 ? null : `concurrent_in_use is ${String(inUse)} for an idle account`;
        },
      },
    },
    post(
      'stream declares and sends the credits charged in a trailer',
      'reproducers',
      STREAM,
      jsonBody({ ...STREAM_BASE, text: 'Hello there.' }),
      {
        issue: 9,
        expect: {
          status: [200],
          check: (res) => {
            if (!/x-credits-used/i.test(res.headers.trailer ?? ''))
              return `no "Trailer: X-Credits-Used" header (got ${JSON.stringify(res.headers.trailer ?? null)})`;
            const used = res.trailers['x-credits-used'];
            return used !== undefined && /^\d+$/.test(used) ? null : `no X-Credits-Used trailer (trailers ${JSON.stringify(res.trailers)})`;
          },
        },
      },
    ),
  ];
}

/**
 * A 200 from /tts/generate/with-timestamps must be its JSON with sound words: in order, each
 * ending after it starts and no later than the audio, none starting before the previous ended.
 */
export function timedAnswerProblem(res: { status: number; headers: Record<string, string>; body: Buffer }): string | null {
  if (res.status < 200 || res.status >= 300) return null;
  let body: { success?: unknown; audio_base64?: unknown; duration?: unknown; words?: unknown };
  try {
    body = JSON.parse(res.body.toString('utf8')) as typeof body;
  } catch {
    return `a 2xx that is not JSON (${res.headers['content-type'] ?? 'no Content-Type'})`;
  }
  if (body.success !== true || typeof body.audio_base64 !== 'string' || body.audio_base64 === '' || typeof body.duration !== 'number')
    return `not the timed answer: ${res.body.subarray(0, 160).toString()}`;
  if (!Array.isArray(body.words)) return 'words is not an array';
  let prevEnd = 0;
  for (const w of body.words as Array<{ word?: unknown; start?: unknown; end?: unknown }>) {
    if (typeof w.word !== 'string' || w.word === '' || typeof w.start !== 'number' || typeof w.end !== 'number')
      return `a malformed word ${JSON.stringify(w)}`;
    if (w.start < prevEnd || w.end <= w.start || w.end > body.duration)
      return `word ${JSON.stringify(w)} out of order or outside ${body.duration} s (previous ended at ${prevEnd})`;
    prevEnd = w.end;
  }
  return null;
}

/**
 * /tts/generate/with-timestamps takes the body of /tts/generate: the generate cases that need no
 * smaller case first (field types, unicode, markup, deep JSON), sent there too, with the timed
 * answer's own check on top of each case's expectation.
 */
function timedCases(cases: HostileCase[]): HostileCase[] {
  return cases
    .filter((c) => c.path === GENERATE && c.method === 'POST' && !c.requires)
    .map((c) => {
      const own = c.expect?.check;
      const check: CaseExpect['check'] = (res) => own?.(res) ?? timedAnswerProblem(res);
      return { ...c, name: `with-timestamps: ${c.name}`, path: GENERATE_TIMED, expect: { ...c.expect, check } };
    });
}

/** Every named case, in the order they are sent. */
export function hostileCorpus(): HostileCase[] {
  return [
    ...reproducerExtras(),
    ...fieldCases(),
    ...unicodeCases(),
    ...markupCases(),
    ...timedCases([...fieldCases(), ...unicodeCases(), ...markupCases(), ...deepJsonCases()]),
    ...deepJsonCases(),
    ...sttFieldCases(),
    ...multipartFaultCases(),
    ...audioHeaderCases(),
    ...methodAndPathCases(),
    ...headerCases(),
    ...dashboardFieldCases(),
    ...openAiCases(),
    ...dialectCases(),
    ...jobCases(),
  ];
}
