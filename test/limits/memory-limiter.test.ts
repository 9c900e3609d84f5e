import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { runLimiterContract } from './limiter-contract.js';

runLimiterContract('MemoryLimiter', async () => {
  const limiter = new MemoryLimiter();
  return { limiter, cleanup: () => limiter.close() };
});
