// Billing rules at the service level: price -> hold (before work) -> settle once on success, or
// release on failure (decisions #27). Store failures travel as StoreUnavailableError (the edges
// answer 503 CREDIT_CHECK_FAILED, #34); an exhausted monthly character quota is 429 QUOTA_EXCEEDED with Retry-After until the period
// ends (#29).

import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { HoldResult, Store } from '../storage/store.js';
import type { AuthContext } from './auth-context.js';
import { currentPeriod } from './period.js';
import type { UsageKind } from '../domain/accounts.js';

/** Unsettled holds older than this are treated as abandoned by a crashed node and released. */
const HOLD_LEASE_MS = 15 * 60 * 1000;

export interface HoldSpec {
  requestId: string;
  kind: UsageKind;
  model: string;
  credits: number;
  /** Characters counted against the monthly quota (TTS); 0 for STT. */
  characters: number;
  /** A hold id the caller can name later (a job's `<job id>:<attempt>`, docs/jobs.md); random by default. */
  holdId?: string;
}

export interface SettleSpec {
  /** TTS: characters; STT: seconds billed. */
  units: number;
  characters: number;
  credits: number;
}

export class CreditHold {
  private done = false;
  credits: number;
  characters: number;

  constructor(
    private readonly billing: Billing,
    readonly holdId: string,
    readonly auth: AuthContext,
    readonly spec: HoldSpec,
    /** Balance right after the hold was taken. */
    readonly balanceAfterHold: number,
  ) {
    this.credits = spec.credits;
    this.characters = spec.characters;
  }

  get settled(): boolean {
    return this.done;
  }

  /** Adds to the hold (long real-time streams); throws INSUFFICIENT_CREDITS / QUOTA_EXCEEDED. */
  async extend(extraCredits: number, extraCharacters = 0): Promise<void> {
    const { store, config } = this.billing;
    const limit = config.product.plans[this.auth.account.plan].monthlyCharacters;
    const period = currentPeriod(this.auth.account.periodAnchor);
    const res = await store.extendHold(
      this.holdId,
      extraCredits,
      extraCharacters,
      extraCharacters > 0 ? limit : null,
      period.start,
      new Date(Date.now() + HOLD_LEASE_MS),
    );
    this.billing.check(res, this.auth, extraCredits);
    this.credits += extraCredits;
    this.characters += extraCharacters;
  }

  /** Writes the one ledger row and refunds what was held beyond `actual.credits`. Returns the new balance. */
  async settle(actual: SettleSpec): Promise<number> {
    if (this.done) throw new Error('hold already settled or released');
    this.done = true;
    const res = await this.billing.store.settleHold(this.holdId, {
      requestId: this.spec.requestId,
      accountId: this.auth.account.id,
      keyId: this.auth.key.id,
      mode: this.auth.mode,
      kind: this.spec.kind,
      model: this.spec.model,
      units: actual.units,
      characters: actual.characters,
      credits: actual.credits,
      createdAt: new Date(),
    });
    this.billing.onDebit(this.spec.model, this.auth.mode, actual.credits);
    return res.balance;
  }

  /** Gives the held credits back (failed request). Never throws: a failed release expires later. */
  async release(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.billing.store.releaseHold(this.holdId);
    } catch {
      // The hold's lease expires and releaseExpiredHolds returns the credits.
    }
  }
}

/**
 * One billable piece of work, from its hold to its one ledger row: `finish` settles what the work
 * used (null, nothing to bill: the hold is released), `fail` releases the hold, or bills what a work cut
 * short had already delivered (the sentences a stream sent). Whichever comes first counts; later
 * calls do nothing, so a client's abort racing the work's own end never bills twice.
 */
export class BillableWork {
  private outcome: Promise<number | null> | null = null;

  constructor(readonly hold: CreditHold) {}

  /** Settles once with what was used; resolves with the balance after it (null when released). */
  finish(used: SettleSpec | null): Promise<number | null> {
    this.outcome ??= used ? this.hold.settle(used) : this.hold.release().then(() => null);
    return this.outcome;
  }

  /** The work failed or its client went away. Never throws: a hold that cannot be settled expires. */
  async fail(delivered: SettleSpec | null = null): Promise<void> {
    await this.finish(delivered).catch(() => this.hold.release());
  }

  get finished(): boolean {
    return this.outcome !== null;
  }
}

export class Billing {
  constructor(
    readonly store: Store,
    readonly config: Config,
    /** Told about every debit (metrics). */
    readonly onDebit: (model: string, mode: string, credits: number) => void = () => undefined,
  ) {}

  /** Checks credits and quota and takes the hold; throws 402 / 429 / 503 as the decisions say. */
  async hold(auth: AuthContext, spec: HoldSpec): Promise<CreditHold> {
    const plan = this.config.product.plans[auth.account.plan];
    const period = currentPeriod(auth.account.periodAnchor);
    const holdId = spec.holdId ?? `hold_${randomUUID()}`;
    const res = await this.store.holdCredits({
      holdId,
      accountId: auth.account.id,
      mode: auth.mode,
      credits: spec.credits,
      characters: spec.characters,
      characterLimit: spec.characters > 0 ? plan.monthlyCharacters : null,
      periodStart: period.start,
      expiresAt: new Date(Date.now() + HOLD_LEASE_MS),
    });
    this.check(res, auth, spec.credits);
    return new CreditHold(this, holdId, auth, spec, res.ok ? res.balance : 0);
  }

  /** Holds the credits of a piece of work (402 / 429 before any of it runs); see BillableWork. */
  async begin(auth: AuthContext, spec: HoldSpec): Promise<BillableWork> {
    return new BillableWork(await this.hold(auth, spec));
  }

  /**
   * Runs one billable piece of work: holds `spec`, runs `work`, settles exactly once with the usage
   * it resolves with, and releases the hold when it fails (the client's abort included: the work
   * rejects on its signal), unless `delivered` says what of it the client already got (a stream's
   * parts that went out), which is then billed. Returns the work's result and the balance after settling.
   */
  async run<T>(
    auth: AuthContext,
    spec: HoldSpec,
    work: () => Promise<{ result: T; used: SettleSpec }>,
    delivered?: () => SettleSpec | null,
  ): Promise<{ result: T; balance: number | null }> {
    const billed = await this.begin(auth, spec);
    let done: { result: T; used: SettleSpec };
    try {
      done = await work();
    } catch (err) {
      await billed.fail(delivered?.() ?? null);
      throw err;
    }
    return { result: done.result, balance: await billed.finish(done.used) };
  }

  /** The account's balance in the caller's mode (what a real-time stream may prepay). */
  balance(auth: AuthContext): Promise<number> {
    return this.store.getBalance(auth.account.id, auth.mode);
  }

  check(res: HoldResult, auth: AuthContext, credits: number): void {
    if (res.ok) return;
    if (res.reason === 'credits') {
      throw new ApiError('INSUFFICIENT_CREDITS', {
        message: `This request costs ${credits} credits but the ${auth.mode} balance is ${res.balance}.`,
        details: { required: credits, balance: res.balance },
      });
    }
    const period = currentPeriod(auth.account.periodAnchor);
    const limit = this.config.product.plans[auth.account.plan].monthlyCharacters;
    throw new ApiError('QUOTA_EXCEEDED', {
      message: `The monthly character quota of ${limit} would be exceeded (${res.charactersUsed} used this period).`,
      retryAfter: Math.max(1, Math.ceil((period.end.getTime() - Date.now()) / 1000)),
      details: { characters_limit: limit, characters_used: res.charactersUsed },
    });
  }

  /**
   * Keeps a named hold alive while its work runs (a job run's `<job id>:<attempt>`, renewed at each
   * heartbeat): its expiry moves a lease ahead, nothing else changes. A store failure is not
   * thrown: the next renewal tries again, and a hold past its lease is released by the sweep.
   */
  async renewHold(auth: AuthContext, holdId: string): Promise<void> {
    const period = currentPeriod(auth.account.periodAnchor);
    await this.store.extendHold(holdId, 0, 0, null, period.start, new Date(Date.now() + HOLD_LEASE_MS)).catch(() => undefined);
  }

  /** Gives a named hold back whole (a canceled or stopped job run's, or a dead run's); nothing when it is settled or gone. */
  releaseHold(holdId: string): Promise<void> {
    return this.store.releaseHold(holdId);
  }

  /** Periodic clean-up of holds left by crashed nodes. */
  async releaseExpiredHolds(): Promise<number> {
    return this.store.releaseExpiredHolds(new Date());
  }
}
