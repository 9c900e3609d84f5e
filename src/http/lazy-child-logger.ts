// Fastify gives every request a child logger bound to its request id. Pino builds a child by
// serializing its bindings (~1.5-2 us per request, ~3% of a cached API request's CPU,
// docs/benchmarks.md) even when nothing is ever logged with it, as for most requests at the
// warn level. This child is built only when a call would write a line (or a child is asked for);
// below the logger's level a call costs a level check. Written here because neither pino nor
// Fastify has a lazy child.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

interface LevelAware extends FastifyBaseLogger {
  isLevelEnabled?(level: string): boolean;
}

export class LazyChildLogger {
  private real: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: LevelAware,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.real ??= this.parent.child(this.bindings, this.options));
  }

  private enabled(level: Level): boolean {
    // A child may have been given a level of its own (options.level); the parent's answers otherwise.
    if (this.real) return (this.real as LevelAware).isLevelEnabled?.(level) ?? true;
    if (this.options.level !== undefined) return true;
    return this.parent.isLevelEnabled?.(level) ?? true;
  }

  get level(): string {
    return this.real ? this.real.level : (this.options.level ?? this.parent.level);
  }

  set level(level: string) {
    this.logger().level = level;
  }

  // Prototype methods, not arrow fields: a request must not pay for seven closures.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private write(level: Level, args: unknown[]): void {
    if (!this.enabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }
}

/** Fastify's childLoggerFactory option. */
export function lazyChildLoggerFactory(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // Its log methods take any arguments, as pino's do (FastifyBaseLogger's overloads are pino's).
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
