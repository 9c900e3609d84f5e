// Picks the limiter from configuration: Redis when REDIS_URL is set (shared by every node), else memory.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Limiter } from './limiter.js';
import { MemoryLimiter } from './memory-limiter.js';

export async function openLimiter(config: Config, log?: FastifyBaseLogger): Promise<Limiter> {
  if (config.redisUrl) {
    const { RedisLimiter } = await import('./redis-limiter.js');
    return RedisLimiter.connect(config.redisUrl, log);
  }
  return new MemoryLimiter();
}
