// Writes docs/errors.md from the one table in src/errors.ts (run: node --import tsx scripts/gen-errors-doc.ts).
import { writeFileSync } from 'node:fs';
import { ERRORS } from '../src/errors.js';

const rows = Object.entries(ERRORS).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.category} | ${e.message} | ${e.resolution} |`);
const doc = `# Errors

Every error response, 404 and 500 included, has this body (docs/interface.md), and the
\`X-Request-ID\` header equals \`request_id\`:

\`\`\`json
{
  "success": false,
  "error": {
    "code": "INVALID_SPEED",
    "message": "speed must be <= 2: speed must be a number from 0.5 to 2.0.",
    "category": "validation",
    "resolution": "Send a speed between 0.5 and 2.0 (default 1.0).",
    "details": { "field": "speed", "provided": "3" }
  },
  "request_id": "req_5f0c6f0e0b6d4c1f9a0f2a3b4c5d6e7f",
  "timestamp": 1795370000.123
}
\`\`\`

\`details\` may hold \`field\` (the request field at fault), \`provided\` (what was sent) and
\`suggestions\` (valid alternatives, e.g. the right localized voice name). 429 and 503 responses
carry \`Retry-After\` (seconds).

Retry rules for clients (docs/interface.md): 400, 401, 402, 403 are not retried; 429 after
\`Retry-After\`; 500 with exponential backoff (1 s, 2 s, 4 s plus 0-1 s jitter); 503 after
\`Retry-After\` / backoff.

This table is generated from \`src/errors.ts\` (\`node --import tsx scripts/gen-errors-doc.ts\`).

| code | status | category | message | resolution |
|---|---|---|---|---|
${rows.join('\n')}

Choices where the interface is silent (docs/decisions.md #25 and our own):

- Malformed JSON, a body that is not a JSON object, or a wrong \`Content-Type\`: 400 \`INVALID_REQUEST\`.
- A field of the wrong type or out of range: the field's own code (\`INVALID_SPEED\`, \`INVALID_VOICE\`, ...),
  or \`INVALID_PARAMETER\` for fields without one; the message names the field.
- An unreachable database: 503 \`CREDIT_CHECK_FAILED\` for every authenticated request, since neither
  the key nor the balance can be verified (decisions #34).
- A speech engine that fails after retries: 500 \`ENGINE_ERROR\`; no partial audio is returned.
- TTS output over the per-request limits (20 minutes of audio on \`/tts/generate\`, of which 5
  minutes of break silence; 3 hours on \`/tts/stream\`; docs/operations.md "Billing"): 400
  \`AUDIO_TOO_LONG\` with \`details.limit_seconds\`, before synthesis when the markup shows it, else
  as soon as the audio produced passes the limit (a stream already under way ends early instead).
- Control characters (except tab and line breaks), lone surrogates and Unicode noncharacters in TTS
  text are removed, not refused; text left empty is 400 \`MISSING_TEXT\`.
- The account dashboard (\`/dashboard/api\`, docs/dashboard.md) uses the same body: a wrong email or
  password is 401 \`SIGN_IN_FAILED\` (the same answer for an unknown email), a missing or expired
  session 401 \`SESSION_REQUIRED\`, a state-changing request without the session's
  \`X-CSRF-Token\` (or from another origin) 403 \`CSRF_FAILED\`, too many sign-in attempts 429
  \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`. During a store outage its routes answer 503
  \`CREDIT_CHECK_FAILED\` saying the account store is unreachable (no balance is involved).
- An account holds at most 100 active API keys per mode (live, test; the playground's own key not
  counted): creating one more in the dashboard is 403 \`KEY_LIMIT_REACHED\`
  (\`details.limit\`, \`details.mode\`). Revoked, disabled and expired keys do not count.

Malformed input at the edge (every answer has the body above and \`X-Request-ID\`, whatever the input):

- A JSON body nested more than 64 levels deep: 400 \`INVALID_REQUEST\` (\`details.limit\`), refused
  before it is parsed. \`details.provided\` repeats at most 200 characters of a value.
- A broken multipart upload on the STT endpoints (no boundary, a boundary longer than 256 characters
  or not found in the body, malformed part headers, a body that ends mid-part): 400
  \`INVALID_REQUEST\`.
- A bad percent-encoding in the path: 400 \`INVALID_REQUEST\`. A dashboard path with a \`.\` or
  \`..\` segment, a dot file, a NUL, an encoded slash or any character outside letters, digits,
  \`.\`, \`-\`, \`_\`: 404 \`NOT_FOUND\`; only the built page is ever served.
- What Node's HTTP parser refuses (an unknown method such as \`FOO\`, a malformed request line or
  header, a lying \`Content-Length\`): 400 \`INVALID_REQUEST\`; headers over Node's limit (16 KB):
  413 \`REQUEST_TOO_LARGE\`; \`CONNECT\`: 404 \`NOT_FOUND\`. These close the connection, since
  what follows on it cannot be framed.
- An \`Expect\` header other than \`100-continue\`: 400 \`INVALID_REQUEST\` (\`details.field\` \`Expect\`),
  where Node would answer a bare 417 (not a status of the table above: the fault is a header the
  service does not take). The body, if sent anyway, is read and dropped; the connection stays open.
`;
writeFileSync(new URL('../docs/errors.md', import.meta.url), doc);
