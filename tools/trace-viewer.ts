// `npm run traces`: a local trace viewer for development. An OTLP/HTTP receiver (JSON encoding) on
// TRACE_VIEWER_PORT (default 4318, the OTLP/HTTP port) that keeps the last TRACE_VIEWER_MAX_TRACES traces in memory
// and shows them: `/` lists them (newest first), `/traces/{trace_id}` draws one as a waterfall across services,
// `/api/traces` and `/api/traces/{trace_id}` give the same as JSON. Each new trace is also printed as one line.
//
// Why our own: no trace viewer is packaged for the npm registry or Debian bookworm (Jaeger, Zipkin,
// otel-desktop-viewer, otel-gui and otelop ship as Go or Java binaries, Homebrew taps or container images). With a
// container registry at hand, Jaeger's all-in-one image takes the same settings (docs/operations.md).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ViewedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  /** Unix epoch, nanoseconds, as decimal text (OTLP JSON's encoding of fixed64). */
  startNs: string;
  endNs: string;
  attributes: Record<string, string | number | boolean>;
}

export interface TraceSummary {
  traceId: string;
  root: string;
  services: string[];
  spans: number;
  startedAt: string;
  durationMs: number;
}

const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const MAX_BODY_BYTES = 16 * 1024 * 1024;

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: Record<string, unknown>[] }[];
  }[];
}

const valueOf = (v: OtlpValue | undefined): string | number | boolean =>
  v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined) ?? v?.doubleValue ?? v?.boolValue ?? '';

/** The spans of one OTLP/HTTP JSON export request (`ExportTraceServiceRequest`). */
export function spansOf(request: OtlpRequest): ViewedSpan[] {
  const out: ViewedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value) || 'unknown');
    for (const ss of rs.scopeSpans ?? []) {
      for (const sp of ss.spans ?? []) {
        const attributes: ViewedSpan['attributes'] = {};
        for (const a of (sp.attributes ?? []) as { key: string; value: OtlpValue }[]) attributes[a.key] = valueOf(a.value);
        out.push({
          service,
          traceId: String(sp.traceId),
          spanId: String(sp.spanId),
          parentSpanId: String(sp.parentSpanId ?? ''),
          name: String(sp.name),
          kind: SPAN_KINDS[Number(sp.kind)] ?? String(sp.kind),
          startNs: String(sp.startTimeUnixNano ?? '0'),
          endNs: String(sp.endTimeUnixNano ?? '0'),
          attributes,
        });
      }
    }
  }
  return out;
}

const ms = (ns: string) => Number(BigInt(ns) / 1000n) / 1000;

/** The traces received, oldest first, at most `maxTraces` (the oldest are dropped). */
export class TraceStore {
  private readonly traces = new Map<string, ViewedSpan[]>();
  constructor(private readonly maxTraces = 1000) {}

  /** Adds spans; returns the ids of traces seen for the first time. */
  add(spans: ViewedSpan[]): string[] {
    const fresh: string[] = [];
    for (const span of spans) {
      let list = this.traces.get(span.traceId);
      if (!list) {
        list = [];
        this.traces.set(span.traceId, list);
        fresh.push(span.traceId);
      }
      list.push(span);
    }
    while (this.traces.size > this.maxTraces) this.traces.delete(this.traces.keys().next().value as string);
    return fresh;
  }

  spans(traceId: string): ViewedSpan[] | undefined {
    const list = this.traces.get(traceId);
    return list && [...list].sort((a, b) => (BigInt(a.startNs) < BigInt(b.startNs) ? -1 : 1));
  }

  summary(traceId: string): TraceSummary | undefined {
    const spans = this.spans(traceId);
    if (!spans?.length) return undefined;
    const ids = new Set(spans.map((s) => s.spanId));
    const root = spans.find((s) => !s.parentSpanId || !ids.has(s.parentSpanId)) ?? spans[0]!;
    const start = Math.min(...spans.map((s) => ms(s.startNs)));
    const end = Math.max(...spans.map((s) => ms(s.endNs)));
    return {
      traceId,
      root: `${root.service}: ${root.name}`,
      services: [...new Set(spans.map((s) => s.service))],
      spans: spans.length,
      startedAt: new Date(start).toISOString(),
      durationMs: Math.round((end - start) * 10) / 10,
    };
  }

  /** Newest first. */
  list(): TraceSummary[] {
    return [...this.traces.keys()]
      .reverse()
      .map((id) => this.summary(id))
      .filter((s): s is TraceSummary => s !== undefined);
  }
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title><style>
body{font:14px system-ui,sans-serif;margin:1.5rem;color:#222}table{border-collapse:collapse;width:100%}td,th{padding:.25rem .5rem;text-align:left;border-bottom:1px solid #eee}
.bar{position:relative;height:1rem;background:#f4f4f4}.bar span{position:absolute;top:0;bottom:0;background:#4a7bd0}.svc{font-weight:600}code{font-size:12px}
</style></head><body>${body}</body></html>`;

/** The waterfall of one trace: each span indented under its parent, with a bar on the trace's time axis. */
export function waterfall(store: TraceStore, traceId: string): string | undefined {
  const spans = store.spans(traceId);
  const summary = store.summary(traceId);
  if (!spans || !summary) return undefined;
  const start = Math.min(...spans.map((s) => ms(s.startNs)));
  const total = Math.max(summary.durationMs, 0.001);
  const children = new Map<string, ViewedSpan[]>();
  const ids = new Set(spans.map((s) => s.spanId));
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const rows: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const s of children.get(parent) ?? []) {
      const left = ((ms(s.startNs) - start) / total) * 100;
      const width = Math.max(((ms(s.endNs) - ms(s.startNs)) / total) * 100, 0.3);
      const attrs = Object.entries(s.attributes)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      rows.push(
        `<tr><td style="padding-left:${0.5 + depth * 1.2}rem"><span class="svc">${escape(s.service)}</span> ${escape(s.kind.toLowerCase())} ${escape(s.name)}` +
          `<br><code>${escape(attrs.slice(0, 300))}</code></td><td>${(ms(s.endNs) - ms(s.startNs)).toFixed(1)} ms</td>` +
          `<td style="width:40%"><div class="bar"><span style="left:${left.toFixed(2)}%;width:${width.toFixed(2)}%"></span></div></td></tr>`,
      );
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  return page(
    `trace ${traceId}`,
    `<p><a href="/">all traces</a></p><h1>${escape(summary.root)}</h1><p>trace <code>${traceId}</code>: ${summary.spans} spans across ${summary.services.map(escape).join(', ')}, ${summary.durationMs} ms</p>` +
      `<table><tr><th>span</th><th>duration</th><th>timeline</th></tr>${rows.join('')}</table>`,
  );
}

function listPage(store: TraceStore): string {
  const rows = store
    .list()
    .map(
      (t) =>
        `<tr><td><a href="/traces/${t.traceId}">${escape(t.root)}</a></td><td>${t.services.map(escape).join(', ')}</td><td>${t.spans}</td><td>${t.durationMs} ms</td><td>${t.startedAt}</td></tr>`,
    )
    .join('');
  return page(
    'traces',
    `<h1>Traces</h1><p>Newest first; reload to see new ones.</p><table><tr><th>root span</th><th>services</th><th>spans</th><th>duration</th><th>started</th></tr>${rows}</table>`,
  );
}

export interface TraceViewer {
  url: string;
  store: TraceStore;
  close(): Promise<void>;
}

/** Starts the receiver and viewer; `onTrace` hears of each trace id seen for the first time. */
export async function startTraceViewer(
  opts: { port?: number; host?: string; maxTraces?: number; onTrace?: (traceId: string) => void } = {},
): Promise<TraceViewer> {
  const store = new TraceStore(opts.maxTraces);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://viewer');
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (req.method === 'POST' && url.pathname === '/v1/traces') {
      if (!(req.headers['content-type'] ?? '').includes('json')) {
        req.resume();
        return send(415, 'application/json', JSON.stringify({ message: 'send OTLP/HTTP JSON: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json' }));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (d: Buffer) => {
        size += d.length;
        if (size <= MAX_BODY_BYTES) chunks.push(d);
      });
      req.on('end', () => {
        if (size > MAX_BODY_BYTES) return send(413, 'application/json', JSON.stringify({ message: 'export request too large' }));
        let spans: ViewedSpan[];
        try {
          spans = spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
        } catch {
          return send(400, 'application/json', JSON.stringify({ message: 'not an OTLP JSON ExportTraceServiceRequest' }));
        }
        for (const id of store.add(spans)) opts.onTrace?.(id);
        send(200, 'application/json', '{}');
      });
      return;
    }
    if (req.method !== 'GET') return send(405, 'application/json', JSON.stringify({ message: 'GET the viewer, POST /v1/traces' }));
    if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', listPage(store));
    if (url.pathname === '/api/traces') return send(200, 'application/json', JSON.stringify({ traces: store.list() }));
    const api = /^\/api\/traces\/([0-9a-f]{32})$/.exec(url.pathname);
    if (api) {
      const spans = store.spans(api[1]!);
      return spans
        ? send(200, 'application/json', JSON.stringify({ summary: store.summary(api[1]!), spans }))
        : send(404, 'application/json', '{"message":"no such trace"}');
    }
    const html = /^\/traces\/([0-9a-f]{32})$/.exec(url.pathname);
    const drawn = html && waterfall(store, html[1]!);
    return drawn ? send(200, 'text/html; charset=utf-8', drawn) : send(404, 'text/plain; charset=utf-8', 'not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 4318, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (require.main === module) {
  const port = Number(process.env.TRACE_VIEWER_PORT ?? 4318);
  let started: TraceViewer | undefined;
  // A new trace is printed a moment after its first spans, so the line names the services of that export round.
  const print = (id: string) =>
    setTimeout(() => {
      const s = started?.store.summary(id);
      if (s) process.stdout.write(`${s.startedAt} ${s.root} (${s.services.join(', ')}; ${s.spans} spans): ${started!.url}/traces/${id}\n`);
    }, 1000);
  startTraceViewer({
    port,
    host: process.env.TRACE_VIEWER_HOST ?? '127.0.0.1',
    maxTraces: Number(process.env.TRACE_VIEWER_MAX_TRACES ?? 1000),
    onTrace: print,
  }).then(
    (v) => {
      started = v;
      process.stdout.write(
        `trace viewer on ${v.url} (Ctrl-C stops it). Start the stack in another terminal with:\n` +
          `  OTEL_EXPORTER_OTLP_ENDPOINT=${v.url} OTEL_EXPORTER_OTLP_PROTOCOL=http/json OTEL_BSP_SCHEDULE_DELAY=200 npm run start:kafka\n`,
      );
      const stop = () => void v.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: Error) => {
      process.stderr.write(`trace viewer: cannot listen on port ${port}: ${err.message} (TRACE_VIEWER_PORT chooses another)\n`);
      process.exit(1);
    },
  );
}
