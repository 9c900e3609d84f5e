// The jobs API end to end on the embedded SQLite queue (jobs-api-cases.ts).
import { jobsApiSuite } from './jobs-api-cases.js';

jobsApiSuite(async () => ({ env: {}, async cleanup() {} }));
