import { LoggerService } from '@nestjs/common';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { DestinationStream, Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export const LOG_FORMAT_VALUES = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMAT_VALUES)[number];

/**
 * `LOG_FORMAT`: `json` (one JSON object per line, for log collectors), `pretty` (coloured, one readable line per
 * event, for a person at a terminal) or `auto` (the default: pretty when standard output is a terminal, JSON
 * otherwise: in containers, CI and pipes nothing changes).
 */
export function resolveLogFormat(format: string | undefined = process.env.LOG_FORMAT, isTty = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (format === 'json' || format === 'pretty') return format;
  return isTty ? 'pretty' : 'json';
}

/**
 * One logger per service; every line carries `service`, request lines carry `reqId`. JSON by default; human
 * readable (pino-pretty, synchronous in this process, so nothing is lost at exit) when LOG_FORMAT says so.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  format: string | undefined = process.env.LOG_FORMAT,
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: ['req.headers.authorization', 'client_secret'], censor: '[redacted]' },
    // Lines written inside a trace name it (OpenTelemetry; without tracing there is never an active span).
    mixin: () => {
      const span = trace.getActiveSpan()?.spanContext();
      return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
    },
  };
  if (resolveLogFormat(format, destination ? false : undefined) === 'pretty') {
    const pretty = pinoPretty({
      colorize: destination ? false : process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      messageFormat: '{service} | {msg}',
      singleLine: true,
      sync: true,
      ...(destination ? { destination } : {}),
    });
    return pino(options, pretty);
  }
  return destination ? pino(options, destination) : pino(options);
}

/** Routes Nest's own log calls into the service's pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
