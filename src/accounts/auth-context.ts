import type { Account, ApiKeyRecord, Feature, KeyMode } from '../domain/accounts.js';
import { ApiError } from '../errors.js';

/** Who is calling: attached to every authenticated request (request.auth) and real-time stream. */
export interface AuthContext {
  account: Account;
  key: ApiKeyRecord;
  mode: KeyMode;
}

/** 403 FEATURE_DISABLED when an operator switched the feature off for the account (decisions #33). */
export function requireFeature(auth: AuthContext, feature: Feature): void {
  if (!auth.account.features[feature]) {
    throw new ApiError('FEATURE_DISABLED', {
      message: `The feature "${feature}" is disabled for this account.`,
      details: { feature },
    });
  }
}
