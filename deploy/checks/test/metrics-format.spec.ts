/**
 * What the four services expose on /metrics, checked by Prometheus' own linter (`promtool check metrics`, Debian's
 * prometheus package, installed by src/tools.ts when absent): names, suffixes, help texts and types as Prometheus
 * expects them, after real traffic (a participant onboarded, a token issued, a registration), so
 * the HTTP, outbox and consumer families are there too.
 */
import { spawnSync } from 'node:child_process';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack } from '@dtp/testing';
import { ensurePromtool } from '../src/tools';

let promtool: string;
let stack: TestStack;

beforeAll(async () => {
  promtool = ensurePromtool();
  stack = await startTestStack({ services: ['auth', 'platform', 'search', 'gis'] });
});

afterAll(async () => {
  await stack?.close();
});

it('every service exposes metrics promtool finds nothing to say about', async () => {
  const producer = await participantWithToken(stack, 'producer');
  const created = await fetch(`${stack.urls.platform}/diamonds/rough/create`, {
    method: 'POST',
    headers: { ...producer.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ box_id: 'BOX-METRICS', participant_id: 'M-1', participant_timestamp: '2026-01-01T00:00:00Z', rough: { carats: 1.5 } }),
  });
  expect(created.status).toBe(200);
  const findings: Record<string, string> = {};
  for (const [name, url] of Object.entries(stack.urls)) {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('http_request_duration_seconds');
    const check = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    findings[name] = `${check.status}: ${check.stdout}${check.stderr}`.trim();
  }
  expect(findings).toEqual({ auth: '0:', platform: '0:', search: '0:', gis: '0:' });
});
