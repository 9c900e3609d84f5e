// The one settlement rule both stores apply, so SQLite and PostgreSQL charge identically.
//
// The ledger records what actually left the balance, never more: balance + ledger + open holds
// always add up to every credit ever granted, which is what the crash and scale-out tests check.
//  - actual <= held: charge actual, refund the rest of the hold.
//  - actual > held (callers extend holds as work grows, so this is a small overrun at most):
//    take the difference from the balance only as far as it goes; a balance never goes below zero.
//  - no hold left (its lease expired and a sweep returned it while the work was still running):
//    the work was delivered, so charge it from the balance, again only as far as it goes.

/** Credits to write into the ledger row for a settlement. */
export function settlementCharge(held: number, balance: number, actual: number): number {
  return Math.max(0, Math.min(actual, held + balance));
}
