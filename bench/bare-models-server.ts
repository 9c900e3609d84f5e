// The baseline of bench/api-overhead.ts: a bare Fastify server answering GET /api/v1/models with
// a fixed JSON body (no authentication, limits or accounting), in a process of its own like Parla,
// so neither server shares an event loop with the load generator.
// Usage: node --import tsx bench/bare-models-server.ts <file with the JSON body>  -> prints its port
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.argv[2]!, 'utf8');
const app = Fastify();
app.get('/api/v1/models', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${(app.server.address() as { port: number }).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
