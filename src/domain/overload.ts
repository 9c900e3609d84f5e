// Refusals for load, thrown where work is refused (the worker pool, an engine's model host, the
// encoders) and answered by every edge as 503 SERVICE_OVERLOADED with Retry-After (src/faults/translate.ts,
// decisions #31). On the ground floor so that any floor may throw or recognise them.

/**
 * The pool is full: the work is refused at once rather than queued without bound.
 */
export class PoolOverloadedError extends Error {
  constructor(
    /** Seconds after which a retry has a fair chance. */
    readonly retryAfter: number,
    readonly details: Record<string, number>,
  ) {
    super('The worker pool is full.');
    this.name = 'PoolOverloadedError';
  }
}

/**
 * The engine refuses more work for now (a model's queue is full, a model is still loading past the
 * wait bound, the node is shutting down). The message is meant for the client.
 */
export class EngineOverloadedError extends Error {
  constructor(
    message: string,
    /** Seconds after which a retry has a fair chance. */
    readonly retryAfter: number,
  ) {
    super(message);
    this.name = 'EngineOverloadedError';
  }
}
