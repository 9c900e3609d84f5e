// `--password-stdin`: the password comes from standard input (a pipe, a file or the terminal),
// never from the command line, where other users could read it in the process list and it would
// land in shell history. One trailing newline is dropped; everything else is the password.

import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../dashboard/password.js';
import { UsageError } from './args.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if ((input as NodeJS.ReadStream).isTTY) process.stderr.write('Password (then Enter and Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters (got ${length} on stdin)`);
  if (length > MAX_PASSWORD_LENGTH) throw new UsageError(`the password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return password;
}

export function validEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new UsageError(`--email must be an email address (got "${value}")`);
  return email;
}
