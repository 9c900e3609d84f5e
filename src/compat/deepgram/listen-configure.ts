// The live socket's Configure (WS /v1/listen, listen-live.ts): Deepgram's message read by
// configure.ts, with this socket's own fields (`features`) and its keyterms (decisions #46, #76).

import type { RealtimeParams } from '../../stt/live/params.js';
import type { RealtimeSession } from '../../stt/live/session.js';
import type { ListenOutput } from './listen-output.js';
import { configure, MAX_KEYTERMS, objectField } from './configure.js';

/** Formatting features a Configure may turn on or off mid-stream, and the session field each sets. */
const FEATURES: Record<string, ReadonlyArray<'smartFormat' | 'punctuate'>> = {
  numerals: ['smartFormat'],
  smart_format: ['smartFormat', 'punctuate'],
  punctuate: ['punctuate'],
};

/** A stream's boosted words: its `keywords` parameters and its keyterms (which a Configure replaces). */
export interface StreamTerms {
  keywords: readonly string[];
  keyterms: string[];
}

/**
 * The live socket's Configure (configure.ts, decisions #46 and #76): `features` (numerals,
 * smart_format, punctuate: booleans) apply from the next result, `keyterms` from the next utterance.
 */
export function configureListen(
  msg: Record<string, unknown>,
  params: RealtimeParams,
  terms: StreamTerms,
  session: RealtimeSession,
  out: ListenOutput,
): void {
  const result = configure(
    msg,
    terms.keyterms,
    (m, changed) => {
      const features = objectField(m, 'features') ?? {};
      const next: Partial<Pick<RealtimeParams, 'smartFormat' | 'punctuate'>> = {};
      for (const [name, on] of Object.entries(features)) {
        const fields = Object.hasOwn(FEATURES, name) ? FEATURES[name] : undefined;
        if (!fields) throw new Error(`features.${name.slice(0, 40)} cannot be configured here; use numerals, smart_format or punctuate`);
        if (typeof on !== 'boolean') throw new Error(`features.${name} must be true or false`);
        for (const f of fields) next[f] = on;
      }
      return () => {
        if (changed && !session.setKeywords([...terms.keywords, ...changed].slice(0, 50)))
          throw new Error('this stream cannot change its keyterms');
        if (changed) terms.keyterms = changed;
        Object.assign(params, next);
      };
    },
    // As when connecting: at most 100 keywords and keyterms together.
    MAX_KEYTERMS - terms.keywords.length,
  );
  if (result.ok) out.configured(result.keyterms);
  else out.configureFailed(result.reason);
}
