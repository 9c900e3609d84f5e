// `parla`: operator commands (serve, accounts, keys, credits, models) and, on top of the client SDK,
// the client commands. Exit codes: 0 ok, 1 failure, 2 bad arguments.

import { ConfigError, loadConfig } from '../config.js';
import { UsageError } from './args.js';
import { accountsCommand, creditsCommand, keysCommand } from './operator.js';
import { modelsCommand } from './models.js';
import { describeClientError, listenCommand, sayCommand, transcribeCommand } from './client-commands.js';
import { jobsCommand } from './jobs-commands.js';

const HELP = `parla: self-hosted speech service

Operator commands (read DATABASE_URL / PARLA_DATA_DIR like the server):
  parla serve                                       start the API (and real-time) server
  parla accounts create --name N --plan free|basic|pro|enterprise [--credits N] [--test-credits N] [--no-key]
                        [--email E --password-stdin]      dashboard sign-in (password read from stdin)
  parla accounts set-password ID [--email E] --password-stdin   set the dashboard password (min. 10 characters)
  parla accounts list | show ID
  parla accounts webhook-secret ID [--rotate]   show (or replace) the secret that signs job webhooks
  parla accounts plan ID PLAN
  parla accounts features ID --enable|--disable FEATURE   (tts, tts_stream, stt, stt_realtime, diarization)
  parla accounts zero-retention ID [on|off]   the account's jobs keep no result (docs/jobs.md)
  parla keys create --account ID --name N [--test] [--expires-at ISO8601]   (a future date-time)
  parla keys list --account ID
  parla keys revoke|disable|enable KEY_ID
  parla credits add --account ID --amount N [--test]
  parla models catalog                              upstream models pull knows (sherpa-onnx release archives)
  parla models pull NAME|URL|ARCHIVE [--sha256 HEX] [--name DIR]   download, check, unpack, load once in a child
  parla models list | verify NAME | remove NAME     installed models (PARLA_MODELS_DIR), with their loading check
  parla models bind PRODUCT_MODEL NAME | unbind PRODUCT_MODEL      serve a product model with an installed model

Client commands (read --api-key / --url or PARLA_API_KEY / PARLA_URL, default http://127.0.0.1:8080):
  parla say "text" -o out.mp3 [--voice NAME] [--model M] [--language L] [--speed X] [--pitch N]
  parla transcribe FILE [--format json|text|verbose_json|srt|vtt] [--model M] [--language L] [--diarize] [--keywords a,b] [-o out]
                   [--async [--callback URL] [--wait]]   as a job (long audio): prints the job id, or waits for the result
  parla jobs create FILE|URL [--callback URL] [--zero-retention] [--idempotency-key K] [--wait] [transcribe's options]
                                                    an asynchronous transcription of a file or of audio at a URL
                                                    (also --audio-url URL); prints the job id, or with --wait the result
  parla jobs get ID | cancel ID | result ID [-o out]
  parla jobs list [--status queued|running|completed|failed|canceled] [--limit N] [--cursor C]
  parla listen [FILE.wav | -] [--model M] [--language L] [--sample-rate N] [--fast] [--no-interim]
                                                    live transcription over the real-time WebSocket:
      where:  the address the server states (GET /api/v1/stt/realtime/info); to override it,
              --realtime-url wss://HOST:PORT or PARLA_REALTIME_URL
      stdin:  - reads raw 16-bit mono PCM at --sample-rate, or a piped audio file (WAV, Ogg,
              WebM, FLAC, MP3, MP4/M4A) told apart by its first bytes and decoded
      trust:  a server without TLS_CERT_PATH uses a self-signed certificate, written to
              data/tls/realtime-cert.pem in its data directory: trust it with --ca FILE (or
              PARLA_REALTIME_CA=FILE); --insecure skips the check (local testing only)

Operator commands and the jobs commands take --json for machine-readable output.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(HELP);
      return command ? 0 : 2;
    }
    switch (command) {
      case 'say':
        return await sayCommand(rest);
      case 'transcribe':
        return await transcribeCommand(rest);
      case 'listen':
        return await listenCommand(rest);
      case 'jobs':
        return await jobsCommand(rest);
      default:
        break;
    }
    const config = loadConfig();
    switch (command) {
      case 'serve': {
        const { serveForever } = await import('../server.js');
        await serveForever(config);
        return await new Promise<number>(() => undefined);
      }
      case 'accounts':
        return await accountsCommand(config, rest);
      case 'keys':
        return await keysCommand(config, rest);
      case 'credits':
        return await creditsCommand(config, rest);
      case 'models':
        return await modelsCommand(config, rest);
      default:
        throw new UsageError(`unknown command "${command}" (parla help)`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`parla: ${err.message}\n`);
      return 2;
    }
    const api = describeClientError(err);
    process.stderr.write(`parla: ${api ?? (err as Error).message}\n`);
    return 1;
  }
}
