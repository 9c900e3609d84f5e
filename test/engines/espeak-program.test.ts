// eSpeak's program build (espeak-program.ts) and which build a synthesis uses: the program for
// audio, the library only for word timings and the voices the program lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { libraryStartedInThisThread, listEspeakVoices, synthesizeEspeak, type EspeakTask } from '../../src/engines/espeak/espeak-worker.js';
import {
  programHasVoice,
  programStartedInThisThread,
  programVoices,
  ProgramError,
  runProgram,
  speakWithProgram,
} from '../../src/engines/espeak/espeak-program.js';
import { voiceFileFor } from '../../src/engines/espeak/voice-files.js';

const task = (over: Partial<EspeakTask> = {}): EspeakTask => ({
  text: 'One two three, four five six.',
  voice: 'en-us',
  wpm: 175,
  basePitch: 50,
  semitones: 0,
  emphasis: false,
  ...over,
});

// First in this file: nothing else may have started the library build in this process.
test('audio comes from the program; the library build starts only for word timings or a voice the program lacks', async () => {
  for (const over of [
    {},
    { emphasis: true },
    { voice: 'en-us+whisper' },
    { voice: 'de+f2', text: 'Guten Morgen.' },
    { voice: 'en-gb+Andrea', semitones: 3 },
  ]) {
    const r = await synthesizeEspeak(task(over));
    assert.ok(r.samples.length > 5000, JSON.stringify(over));
    assert.deepEqual(r.words, []);
  }
  assert.equal(programStartedInThisThread(), true);
  assert.equal(libraryStartedInThisThread(), false, 'no synthesis above needed the library build');
  const timed = await synthesizeEspeak(task({ wordTimings: true }));
  assert.deepEqual(
    timed.words.map((w) => w.word).filter((w) => /\w/.test(w)),
    ['One', 'two', 'three', 'four', 'five', 'six'],
  );
  assert.equal(libraryStartedInThisThread(), true);
});

test('the program build has every library voice but a few, which the library build then speaks', async () => {
  const program = new Set((await programVoices()).map((v) => v.file.toLowerCase()));
  const library = (await listEspeakVoices()).filter((v) => !v.identifier.startsWith('variant/')).map((v) => v.identifier.toLowerCase());
  assert.ok(program.size >= 130, `${program.size} program voices`);
  const onlyLibrary = library.filter((f) => !program.has(f)).sort();
  assert.deepEqual(onlyLibrary, ['art/xex', 'gmq/fo', 'roa/ca-ba', 'roa/ca-nw', 'roa/ca-va', 'sem/ti', 'trk/kaa']);
  assert.equal(await programHasVoice('fo'), false);
  assert.equal(await programHasVoice('en-gb+f3'), true);
  const faroese = await synthesizeEspeak(task({ text: 'Góðan dag', voice: 'fo' }));
  assert.ok(faroese.samples.length > 5000);
});

test('every program run starts from the same memory and clock: same input, same samples, also after a failed run and in another second', async () => {
  const say = () => speakWithProgram({ input: 'One two three.', ssml: false, voice: 'en-us+f3', wpm: 175, pitch: 50 });
  const first = await say();
  // eSpeak seeds its voices' noise from time(): the next run must fall in another wall-clock second.
  const second = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === second) await new Promise((r) => setTimeout(r, 50));
  await assert.rejects(
    runProgram(['-v', 'xx-nothing', '-w', '/out.wav', 'text']),
    (err: Error) => err instanceof ProgramError && /voice does not exist/.test(err.message),
  );
  const again = await say();
  assert.ok(first.samples.length > 10000);
  assert.equal(first.sampleRate, 22050);
  assert.deepEqual(Buffer.from(again.samples.buffer), Buffer.from(first.samples.buffer));
  await assert.rejects(speakWithProgram({ input: 'x', ssml: false, voice: 'xx-nothing', wpm: 175, pitch: 50 }), /has no voice xx-nothing/);
});

test('a name means a voice file: the file itself first, else the best-priority voice declaring that language', () => {
  const voices = [
    {
      file: 'gmw/en',
      languages: [
        { name: 'en-gb', priority: 2 },
        { name: 'en', priority: 2 },
      ],
    },
    {
      file: 'gmw/en-US',
      languages: [
        { name: 'en-us', priority: 2 },
        { name: 'en', priority: 3 },
      ],
    },
    {
      file: 'gmq/nb',
      languages: [
        { name: 'nb', priority: 5 },
        { name: 'no', priority: 5 },
      ],
    },
  ];
  assert.equal(voiceFileFor(voices, 'EN-us'), 'gmw/en-US', 'by file name, any case');
  assert.equal(voiceFileFor(voices, 'gmw/en'), 'gmw/en');
  assert.equal(voiceFileFor(voices, 'en-gb'), 'gmw/en');
  assert.equal(voiceFileFor(voices, 'no'), 'gmq/nb');
  assert.equal(voiceFileFor(voices, 'xx'), null);
});
