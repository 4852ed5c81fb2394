import { startTraceViewer, TraceViewer } from '../trace-viewer';

/** The local trace viewer (`npm run traces`): what it keeps and shows of OTLP/HTTP JSON exports. */
const TRACE = 'ab'.repeat(16);
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
const span = (spanId: string, parentSpanId: string, name: string, kind: number, startMs: number, endMs: number, extra: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId,
  parentSpanId,
  name,
  kind,
  startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
  endTimeUnixNano: String(BigInt(endMs) * 1_000_000n),
  ...extra,
});
const exportOf = (service: string, spans: unknown[]) => ({
  resourceSpans: [{ resource: { attributes: [attr('service.name', service)] }, scopeSpans: [{ spans }] }],
});

describe('trace viewer (tools/trace-viewer.ts)', () => {
  let viewer: TraceViewer;
  beforeEach(async () => {
    viewer = await startTraceViewer({ port: 0, maxTraces: 2 });
  });
  afterEach(async () => {
    await viewer.close();
  });
  const post = (body: unknown, type = 'application/json') =>
    fetch(`${viewer.url}/v1/traces`, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('joins the spans two services export into one trace, lists it and draws each span under its parent', async () => {
    expect(
      (
        await post(
          exportOf('platform', [
            span('01'.repeat(8), '', 'POST', 2, 1000, 1050),
            span('02'.repeat(8), '01'.repeat(8), 'publish platform.diamonds.v1', 4, 1040, 1045),
          ]),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          exportOf('search', [
            span('03'.repeat(8), '02'.repeat(8), 'process <platform.diamonds.v1>', 5, 1060, 1080, { attributes: [attr('messaging.system', 'kafka')] }),
          ]),
        )
      ).status,
    ).toBe(200);
    const list = (await (await fetch(`${viewer.url}/api/traces`)).json()) as { traces: unknown[] };
    expect(list.traces).toEqual([
      { traceId: TRACE, root: 'platform: POST', services: ['platform', 'search'], spans: 3, startedAt: new Date(1000).toISOString(), durationMs: 80 },
    ]);
    const one = (await (await fetch(`${viewer.url}/api/traces/${TRACE}`)).json()) as { spans: { name: string; kind: string; attributes: unknown }[] };
    expect(one.spans.map((s) => `${s.kind} ${s.name}`)).toEqual([
      'SERVER POST',
      'PRODUCER publish platform.diamonds.v1',
      'CONSUMER process <platform.diamonds.v1>',
    ]);
    expect(one.spans[2]!.attributes).toEqual({ 'messaging.system': 'kafka' });
    const html = await (await fetch(`${viewer.url}/traces/${TRACE}`)).text();
    // Indented by depth (0, 1, 2), names escaped.
    expect(html).toMatch(/padding-left:0\.5rem.*padding-left:1\.7rem.*padding-left:2\.9rem/s);
    expect(html).toContain('process &#60;platform.diamonds.v1&#62;');
    expect(await (await fetch(`${viewer.url}/`)).text()).toContain(`href="/traces/${TRACE}"`);
  });

  it('refuses protobuf (says to send JSON) and what is not an export request; an unknown trace is 404', async () => {
    const proto = await post('\u0000\u0001', 'application/x-protobuf');
    expect([proto.status, ((await proto.json()) as { message: string }).message]).toEqual([
      415,
      'send OTLP/HTTP JSON: set OTEL_EXPORTER_OTLP_PROTOCOL=http/json',
    ]);
    expect((await post('{not json')).status).toBe(400);
    expect((await fetch(`${viewer.url}/api/traces/${'cd'.repeat(16)}`)).status).toBe(404);
    expect((await fetch(`${viewer.url}/traces/nope`)).status).toBe(404);
  });

  it('keeps the newest traces only (TRACE_VIEWER_MAX_TRACES)', async () => {
    for (const t of ['01', '02', '03'])
      await post({
        resourceSpans: [
          {
            resource: { attributes: [attr('service.name', 's')] },
            scopeSpans: [{ spans: [{ ...span('0a'.repeat(8), '', t, 1, 1, 2), traceId: t.repeat(16) }] }],
          },
        ],
      });
    const list = (await (await fetch(`${viewer.url}/api/traces`)).json()) as { traces: { traceId: string }[] };
    expect(list.traces.map((t) => t.traceId)).toEqual(['03'.repeat(16), '02'.repeat(16)]);
  });
});
