/**
 * OpenTelemetry tracing bootstrap (docs/operations.md "Tracing"). Load it FIRST in a process (before Fastify and
 * pg are required: the instrumentations patch them as they load): each app's `src/tracing.ts`, imported on the
 * first line of its main.ts, and the runners.
 *
 * Off by default. On when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER` names an exporter; `OTEL_SDK_DISABLED=true` turns
 * it off. Everything else is the SDK's standard environment (`OTEL_EXPORTER_OTLP_PROTOCOL`, headers, sampler,
 * `OTEL_BSP_*`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 *
 * Spans: the HTTP server and client (instrumentation-http: W3C `traceparent` taken from requests), SQL
 * (instrumentation-pg, only inside a trace), and the events' own `publish <topic>` / `process <topic>` spans
 * (@dtp/events: the trace context travels on the outbox row and in the message headers). Log lines carry
 * `trace_id` and `span_id` (createLogger's mixin).
 */
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { beforeExit } from './exit-hooks';

/** Whether the environment asks for traces. */
export function tracingRequested(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

let started: NodeSDK | undefined;

/** Starts the SDK once per process when requested; `serviceName` unless OTEL_SERVICE_NAME says otherwise. */
export function startTracing(serviceName: string, env: Record<string, string | undefined> = process.env): boolean {
  if (started) return true;
  if (!tracingRequested(env)) return false;
  // Loaded only when traces are asked for: the SDK and the two instrumentations are about 25 MiB of resident memory
  // (14 MiB of heap) that every process would otherwise carry with tracing off. A synchronous require, so the
  // instrumentations are in place before http and pg load.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  started = new Sdk({
    serviceName: env.OTEL_SERVICE_NAME || serviceName,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would be most of the traces and none of the interest.
        ignoreIncomingRequestHook: (req) => /^\/(health|metrics)(\/|$|\?)/.test(req.url ?? ''),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  started.start();
  beforeExit(() => started!.shutdown());
  return true;
}
