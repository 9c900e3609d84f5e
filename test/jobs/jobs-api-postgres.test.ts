// The jobs API end to end on PostgreSQL (the store and the pg-boss queue in one schema; jobs-api-cases.ts).
import { freshPgSchema } from '../helpers/env.js';
import { jobsApiSuite } from './jobs-api-cases.js';

jobsApiSuite(async () => {
  const pg = await freshPgSchema();
  return { env: { DATABASE_URL: pg.url }, cleanup: () => pg.drop() };
});
