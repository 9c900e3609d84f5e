// Public ids: a type prefix and 20 random base62 characters (acc_..., key_...).
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newId(prefix: 'acc' | 'key'): string {
  let out = '';
  while (out.length < 20) {
    for (const b of randomBytes(32)) if (b < 248 && out.length < 20) out += ALPHABET[b % 62];
  }
  return `${prefix}_${out}`;
}
