import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DiamondV1 } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, ParticipantWithToken, TestStack } from '@dtp/testing';
import { eventually, withDb } from './support';

/** Search fed by a running platform (in-process transport): what platform commits, search serves. */
describe('search behind a running platform', () => {
  let stack: TestStack;
  let producer: ParticipantWithToken;
  let reader: ParticipantWithToken;

  const platform = async <T>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${stack.urls.platform}${p}`, {
      method,
      headers: { authorization: producer.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };
  /**
   * A search GET read to its end at once: no answer is ever left half-read on a kept-alive socket, which the
   * server would otherwise wait for at close (up to Fastify's 72 s keep-alive timeout).
   */
  const search = async (p: string) => {
    const res = await fetch(`${stack.urls.search}${p}`, { headers: { authorization: reader.token } });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, json: async () => JSON.parse(body.toString('utf8')) as unknown, arrayBuffer: async () => body };
  };

  beforeAll(async () => {
    const blobs = await mkdtemp(path.join(tmpdir(), 'dtp-search-platform-'));
    stack = await startTestStack({
      services: ['auth', 'platform', 'search'],
      env: { platform: { BLOB_STORE_DIR: blobs }, search: { BLOB_STORE_DIR: blobs } },
    });
    producer = await participantWithToken(stack, 'producer', 'platform');
    reader = await participantWithToken(stack, 'non_participant', 'search');
  });

  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it('registration, file attachment and deletion show up in search with the same version_id', async () => {
    const created = await platform<DiamondV1>('POST', '/diamonds/rough/create', {
      box_id: 'BOX-S',
      participant_id: `erp-${Date.now()}`,
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: 2.5 },
    });
    expect(created.status).toBe(200);
    const id = created.body.diamond_id;
    const seen = await eventually(async () => {
      const res = await search(`/v1/diamonds/${id}`);
      return res.status === 200 ? ((await res.json()) as DiamondV1) : undefined;
    }, 'registered diamond in search');
    expect(seen).toEqual(created.body);
    // Same members in the same order as platform wrote them (the outbox and read model keep JSON text order).
    expect(Object.keys(seen)).toEqual(Object.keys(created.body));

    const bytes = Buffer.from('<ScanReport format="dtp-scan-report"/>\n');
    const hash = createHash('sha256').update(bytes).digest('hex');
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/xml' }), 'report.xml');
    form.append('description', 'scan report');
    const up = await fetch(`${stack.urls.platform}/diamonds/${id}/files/scan_report`, {
      method: 'POST',
      headers: { authorization: producer.token },
      body: form,
    });
    await up.text();
    expect(up.status).toBe(201);
    const file = await eventually(async () => {
      const res = await search(`/v1/diamonds/${id}/files/${hash}`);
      if (res.status === 200) return res;
      await res.arrayBuffer(); // read every other answer to its end (no half-read response on a kept-alive socket)
      return undefined;
    }, 'file in search');
    expect(file.headers.get('etag')).toBe(`"${hash}"`);
    expect(file.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);

    const platformVersion = await withDb(
      stack.databases.platform!,
      async (c) => (await c.query<{ version_id: string }>('SELECT version_id FROM diamonds WHERE diamond_id = $1', [id])).rows[0].version_id,
    );
    const record = (await (await search(`/v1/diamonds/${id}`)).json()) as DiamondV1;
    expect(record.version_id).toBe(platformVersion);

    const del = await platform<{ results: { status: string }[] }>('POST', '/bulk/diamonds/delete', { diamonds: [{ diamond_id: id }] });
    expect(del.status).toBe(200);
    await eventually(async () => ((await search(`/v1/diamonds/${id}`)).status === 404 ? true : undefined), 'deleted diamond gone from search');
    const gone = await search(`/v1/diamonds/${id}/files/${hash}`);
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
  });

  it('serves every kind of file with the content type it was uploaded with (all six kinds)', async () => {
    const created = await platform<DiamondV1>('POST', '/diamonds/rough/create', {
      box_id: 'BOX-T',
      participant_id: `erp-types-${Date.now()}`,
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: 1.5 },
    });
    expect(created.status).toBe(200);
    const id = created.body.diamond_id;
    const kinds: [kind: string, type: string, extra: Record<string, string>][] = [
      ['image', 'image/png', { image_type: 'photo' }],
      ['video', 'video/mp4', {}],
      ['scan', 'model/stl', {}],
      ['scan_report', 'application/xml', {}],
      ['grading_certificate', 'application/pdf', {}],
      ['supplementary', 'text/csv', {}],
    ];
    const hashes: string[] = [];
    for (const [kind, type, extra] of kinds) {
      const bytes = Buffer.from(`${kind} of ${id}, uploaded as ${type}\n`);
      hashes.push(createHash('sha256').update(bytes).digest('hex'));
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), `${kind}.bin`);
      for (const [k, v] of Object.entries(extra)) form.append(k, v);
      const up = await fetch(`${stack.urls.platform}/diamonds/${id}/files/${kind}`, { method: 'POST', headers: { authorization: producer.token }, body: form });
      await up.text();
      expect({ kind, status: up.status }).toEqual({ kind, status: 201 });
    }
    // The last upload's version reaches search with all six refs.
    await eventually(async () => {
      const res = await search(`/v1/diamonds/${id}/files/${hashes[hashes.length - 1]}`);
      await res.arrayBuffer(); // read every answer to its end: no response left half-read on a kept-alive socket
      return res.status === 200 ? true : undefined;
    }, 'all six files in search');
    const served = await Promise.all(
      kinds.map(async ([kind], i) => {
        const res = await search(`/v1/diamonds/${id}/files/${hashes[i]}`);
        await res.arrayBuffer();
        return [kind, res.status, res.headers.get('content-type')];
      }),
    );
    expect(served).toEqual(kinds.map(([kind, type]) => [kind, 200, type]));
  });
});
