// Admitting a real-time stream, for every live edge (SttService.openLive): the checks of a batch
// request (feature, language, engine), the account's windows and concurrency slot, the first block
// of credits, and a free recognizer within a bound; what the stream then holds (LiveStream).

import type { AuthContext } from '../accounts/auth-context.js';
import type { Billing, BillableWork } from '../accounts/billing.js';
import type { Config } from '../config.js';
import type { SttStream } from '../engines/engine.js';
import { ApiError } from '../errors.js';
import { SLOT_LEASE_MS } from '../limits/admission.js';
import { admitLease, type SlotLease } from '../limits/slot-lease.js';
import type { ModelRegistry, SttModel } from '../registry/model-registry.js';
import type { Limiter } from '../limits/limiter.js';
import { LiveCredits } from './live-credits.js';
import { asTenant } from '../domain/tenant.js';

export interface LiveRequest {
  requestId: string;
  model: SttModel;
  language: string | undefined;
  keywords: string[];
  /** How long to wait for a free recognizer (at the upgrade, and when audio resumes after one was given back) before 503 SERVICE_OVERLOADED. */
  recognizerWaitMs: number;
  /** Seconds of audio prepaid per hold block. */
  holdBlockSeconds: number;
  /**
   * What the usage record calls it: 'stt_realtime' (default), or 'stt' for an edge that bills its
   * streamed utterances as the batch recognition they replace (Wyoming, decision #48).
   */
  kind?: 'stt' | 'stt_realtime';
  /**
   * The stream takes a recognizer when its first audio arrives (`reopen`, within the same wait bound,
   * in its account's turn), not at the upgrade: a socket that sends nothing holds none, and a
   * recognizer busy for a moment with a short batch request does not refuse the upgrade (decision
   * #59). Without it the recognizer is taken at the upgrade (503 when none frees up in time).
   */
  attachOnAudio?: boolean;
}

/** An admitted real-time stream: its recognizer, its hold and its concurrency slot. */
export interface LiveStream {
  /** The recognizer taken at the upgrade; null when the stream takes one when its audio arrives (attachOnAudio). */
  stream: SttStream | null;
  /**
   * Takes a recognizer again (the session gives its own back while no audio flows, or to boost
   * other keywords: decision #76), within the same wait bound unless `waitMs` says otherwise (a
   * keyterm switch: decision #97); the stream's keywords when none given.
   */
  reopen(keywords?: readonly string[], waitMs?: number): Promise<SttStream>;
  language: string;
  /** Id of the engine serving the stream (e.g. "pocketsphinx", "sherpa:zipformer-en"). */
  engine: string;
  /** The stream's credits: the first block held, grown while audio arrives (src/stt/live-credits.ts). */
  credits: LiveCredits;
  /** The stream's concurrency slot: kept alive while it runs (keepAlive), released once when it ends. */
  slot: SlotLease;
  /** The slot's renew(), for an edge that times renewals itself. */
  renewSlot(): void;
  /** The slot's release() (once the stream has ended). */
  releaseSlot(): Promise<void>;
  /** Gives everything back when the stream never started (the client left during the upgrade). */
  abandon(): Promise<void>;
}

/**
 * Admits a real-time stream, or throws what to refuse the upgrade with: the feature, the model's
 * language and engine (as batch), the account's windows and concurrency slot (as an API request),
 * the credits of the first block (what the balance covers, up to a block; below one second,
 * 402), and (unless attachOnAudio) a free recognizer within `recognizerWaitMs` (503).
 */
export async function openLiveStream(
  d: { config: Config; registry: ModelRegistry; billing: Billing; limiter: Limiter },
  auth: AuthContext,
  req: LiveRequest,
): Promise<LiveStream> {
  const { config, registry, billing, limiter } = d;
  const language = registry.resolveSttLanguage(req.model, req.language);
  const binding = registry.requireSttBinding(req.model);
  const plan = config.product.plans[auth.account.plan];
  const rate = registry.sttRate(req.model);
  // The same windows, slot and refusals as an API request (one limiter step).
  const slot = await admitLease(limiter, auth.account, plan);
  const releaseSlot = () => slot.release();
  let work: BillableWork | null = null;
  try {
    // The hold grows while audio arrives (LiveCredits.cover).
    const balance = await billing.balance(auth);
    const heldSeconds = Math.max(1, Math.min(req.holdBlockSeconds, Math.floor(balance / rate)));
    work = await billing.begin(auth, {
      requestId: req.requestId,
      kind: req.kind ?? 'stt_realtime',
      model: req.model,
      credits: heldSeconds * rate,
      characters: 0,
    });
    // The account's turn in the recognizers' line (decision #58).
    const open = (keywords: readonly string[] = req.keywords, waitMs = req.recognizerWaitMs) =>
      asTenant(auth.account.id, () =>
        openWithin(binding.engine.openStream({ language, profile: binding.profile, keywords: [...keywords] }), waitMs),
      );
    const stream = req.attachOnAudio ? null : await open();
    const credits = new LiveCredits(work, { heldSeconds, creditsPerSecond: rate, blockSeconds: req.holdBlockSeconds });
    return {
      stream,
      reopen: open,
      language,
      engine: binding.engine.id,
      credits,
      slot,
      renewSlot: () => slot.renew(),
      releaseSlot,
      abandon: async () => {
        // Nothing was streamed, nothing is billed.
        await stream?.close().catch(() => undefined);
        await credits.abandon();
        await releaseSlot();
      },
    };
  } catch (err) {
    if (work) await work.fail();
    await releaseSlot();
    throw err;
  }
}

/** The slot's lease renewal period for a live stream. */
export const LIVE_SLOT_RENEW_MS = SLOT_LEASE_MS / 3;

/** The stream, or 503 SERVICE_OVERLOADED when no recognizer frees up in time (a late one is given back). */
async function openWithin(opening: Promise<SttStream>, ms: number): Promise<SttStream> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError('SERVICE_OVERLOADED', {
            message: 'Every speech recognizer is busy with other streams; try again shortly.',
            retryAfter: 5,
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([opening, timeout]);
  } catch (err) {
    opening.then((s) => s.close()).catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
