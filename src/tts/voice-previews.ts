// Voice previews behind preview_url / sample_url: a short WAV sample of a voice in a language and
// model, synthesized once with the real engine (same voice parameters as /tts/generate), then
// served from a file in the data directory. Concurrent requests for one sample share one synthesis.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { engineVoiceFor, type TtsEngine } from '../engines/engine.js';
import type { WorkerPool } from '../workers/pool.js';
import type { ModelRegistry } from '../registry/model-registry.js';
import { ApiError } from '../errors.js';
import { table } from '../domain/lookup.js';
import { finishDocument } from './finish.js';
import { renderItems } from './speak-items.js';
import type { Catalog } from '../catalog/catalog.js';

/** The words of a sample: a greeting with the voice's name where we have one, else name and digits (eSpeak reads digits in every language). */
const GREETINGS: Record<string, (name: string) => string> = table({
  en: (n) => `Hello, I am ${n}. This is how I sound when I read your text.`,
  de: (n) => `Hallo, ich bin ${n}. So klinge ich, wenn ich Ihren Text vorlese.`,
  fr: (n) => `Bonjour, je m'appelle ${n}. Voici ma voix quand je lis votre texte.`,
  es: (n) => `Hola, soy ${n}. Así sueno cuando leo tu texto.`,
  it: (n) => `Ciao, sono ${n}. Ecco come suono quando leggo il tuo testo.`,
  pt: (n) => `Olá, eu sou ${n}. É assim que eu soo quando leio o seu texto.`,
  nl: (n) => `Hallo, ik ben ${n}. Zo klink ik als ik je tekst voorlees.`,
  da: (n) => `Hej, jeg hedder ${n}. Sådan lyder jeg, når jeg læser din tekst.`,
  sv: (n) => `Hej, jag heter ${n}. Så här låter jag när jag läser din text.`,
  pl: (n) => `Cześć, jestem ${n}. Tak brzmię, kiedy czytam twój tekst.`,
});

export function sampleText(name: string, language: string): string {
  const greet = GREETINGS[language.split('-')[0]!];
  return greet ? greet(name) : `${name}. 1, 2, 3, 4, 5.`;
}

export interface PreviewRequest {
  /** An Aura voice id (aura-01) or a Flash voice name. */
  voice: string;
  model?: string | undefined;
  language?: string | undefined;
}

/**
 * Raised whenever a voice comes to sound different (its engine settings or how pitch is applied),
 * so samples cached on disk by an older version are made again rather than served. 2: Flite sets
 * the pitch of slt, awb and kal16 itself. 3: a shift after synthesis keeps the formants.
 */
const PREVIEW_RENDERING = 3;

export class VoicePreviews {
  private readonly inFlight = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly pool: WorkerPool,
    private readonly catalog: Catalog,
    private readonly engines: ModelRegistry,
    private readonly dir: string,
  ) {}

  /** The sample's WAV bytes; INVALID_VOICE, INVALID_LANGUAGE or LANGUAGE_NOT_SUPPORTED as for /tts/generate. */
  async get(req: PreviewRequest): Promise<Buffer> {
    const aura = this.catalog.data.auraVoices.find((v) => v.id === req.voice);
    const model = req.model ?? (aura ? 'aura-prime' : 'rapid-flash');
    // Aura voices are addressed by id; their name in the language picks the voice like a request would.
    const asked = aura || req.language !== undefined ? this.catalog.resolveLanguage(model, req.language ?? 'en-US') : undefined;
    const name = aura ? this.catalog.auraName(aura, asked!) : req.voice;
    // Previews let anyone hear every voice, premium ones included.
    const selection = this.catalog.selectVoice({
      model,
      language: asked ?? 'en-US',
      languageGiven: asked !== undefined,
      voice: name,
      plan: 'enterprise',
    });
    const { voice, language } = selection;
    const engine = this.engines.resolveTtsEngine(model, language, voice.engineVoices);
    const engineVoice = engine ? engineVoiceFor(engine, voice.engineVoices, language) : undefined;
    if (!engine || engineVoice === undefined)
      throw new ApiError('LANGUAGE_NOT_SUPPORTED', { details: { field: 'language', provided: language } });
    // Keyed by what is heard, not by the model: models whose chains pick the same engine share one
    // file, which also bounds the directory (at most voices x languages x engines files).
    const file = path.join(this.dir, `${engine.id}--${voice.id}--${language}--r${PREVIEW_RENDERING}.wav`);

    const cached = await readFile(file).catch(() => null);
    if (cached) return cached;
    let pending = this.inFlight.get(file);
    if (!pending) {
      pending = this.synthesize(file, engine, engineVoice, selection).finally(() => this.inFlight.delete(file));
      this.inFlight.set(file, pending);
    }
    return pending;
  }

  private async synthesize(
    file: string,
    engine: TtsEngine,
    engineVoice: string,
    selection: ReturnType<Catalog['selectVoice']>,
  ): Promise<Buffer> {
    const { voice, language } = selection;
    const pcm = await renderItems(this.pool, { engine, engineVoice, language, speed: voice.baseRate, pitch: voice.basePitch }, [
      { type: 'text', text: sampleText(voice.name, language), whisper: false, emphasis: false },
    ]);
    const bytes = Buffer.from(await finishDocument(this.pool, [pcm], [], pcm?.sampleRate ?? 22050, 'wav'));
    await mkdir(this.dir, { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, file);
    return bytes;
  }
}
