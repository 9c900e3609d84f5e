// Dashboard passwords: scrypt (memory-hard) from node:crypto, run on the libuv thread pool so the
// event loop never waits for it. The stored string carries its own parameters,
//   scrypt$N$r$p$salt$hash        (salt and hash base64url)
// so the cost can be raised later without invalidating existing hashes.
//
// Cost: N=2^15, r=8, p=3 is one of the OWASP Password Storage Cheat Sheet's scrypt settings
// (32 MiB per hash). Measured on the 2-core build machine: about 0.2-0.35 s per hash.

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const MIN_PASSWORD_LENGTH = 10;
/** Longer input is refused before hashing (scrypt itself would accept it, but nobody types 1 KB). */
export const MAX_PASSWORD_LENGTH = 1024;

const DEFAULT_PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Upper bounds accepted from a stored string, so a corrupted row cannot make us allocate gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 256 * 1024 * 1024;

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, length: number, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes (plus a little); Node's default cap (32 MiB) is just below that.
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, HASH_BYTES, DEFAULT_PARAMS);
  const { N, r, p } = DEFAULT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

function parse(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((x) => (/^\d+$/.test(x) ? Number(x) : NaN)) as [number, number, number];
  if (!(N >= 2 && N <= MAX_N && (N & (N - 1)) === 0 && r >= 1 && r <= MAX_R && p >= 1 && p <= MAX_P && 128 * N * r <= MAX_MEMORY))
    return null;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const hash = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || hash.length < 16) return null;
  return { N, r, p, salt, hash };
}

/** True when `password` matches the stored hash. A malformed stored string never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  // A malformed stored string costs the same time as a real check: timing reveals nothing.
  if (!parsed) return verifyAgainstNothing(password);
  const candidate = await derive(password, parsed.salt, parsed.hash.length, parsed);
  return timingSafeEqual(candidate, parsed.hash);
}

let dummy: Promise<string> | undefined;

/** Computes the stand-in hash ahead of the first sign-in, so even that one takes the usual time. */
export function prepareDummyHash(): void {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
}

/**
 * Spends the same time as checking a real password, for sign-ins whose email is unknown (or has no
 * password): the answer and its timing must not reveal which emails have accounts.
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  prepareDummyHash();
  await verifyPassword(password, await dummy!);
  return false;
}
