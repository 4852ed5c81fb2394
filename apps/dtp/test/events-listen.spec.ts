/**
 * `dtp events listen --forward-to` against a real auth + platform stack and a real local receiver: the events of the
 * feed arrive signed (verified with the reference standardwebhooks package), in order; a receiver that is down at
 * first gets them once it is up.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TestStack, tokenFor } from '@dtp/testing';
import { cliEnv, dtp, stackEnv } from './support';

interface Got {
  headers: Record<string, string>;
  body: string;
}

async function receiver(failFirst = 0): Promise<{ url: string; got: Got[]; close: () => Promise<void> }> {
  const got: Got[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      n += 1;
      if (n <= failFirst) {
        res.writeHead(503).end();
        return;
      }
      got.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('dtp events listen', () => {
  let stack: TestStack;
  let producer: ParticipantCredentials;
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform'] });
    producer = await onboard(stack, 'producer');
  });
  afterAll(async () => stack?.close());

  const register = async (auth: string) => {
    const res = await fetch(`${stack.urls.platform}/diamonds/rough/create`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ box_id: 'B1', participant_id: `erp-${Math.random()}`, participant_timestamp: '2024-03-01T10:00:00Z', rough: { carats: 1.1 } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { diamond_id: string }).diamond_id;
  };

  it('forwards the feed, signed and in order, retrying a receiver that fails at first; --after resumes', async () => {
    const auth = await tokenFor(stack, producer, 'platform');
    const ids = [await register(auth), await register(auth), await register(auth)];
    const r = await receiver(1);
    try {
      const env = cliEnv(stackEnv(stack, producer));
      const run = await dtp(['events', 'listen', '--forward-to', r.url, '--from-start', '--secret', secret, '--max-events', '2', '--poll-interval', '50'], {
        env,
      });
      expect(run.code).toBe(0);
      expect(r.got.map((g) => (JSON.parse(g.body) as { subject: string }).subject)).toEqual(ids.slice(0, 2));
      const wh = new Webhook(secret);
      for (const g of r.got) expect(wh.verify(g.body, g.headers)).toMatchObject({ type: 'dtp.diamond.updated', specversion: '1.0' });
      expect(run.stderr).toMatch(/HTTP 503; again in 1 s/);
      expect(run.stdout.trim().split('\n')).toHaveLength(2);
      const cursor = /resume with --after (c_[0-9a-f]{16})/.exec(run.stderr)![1];
      const rest = await dtp(['events', 'listen', '--forward-to', r.url, '--after', cursor, '--secret', secret, '--max-events', '1'], { env });
      expect(rest.code).toBe(0);
      expect((JSON.parse(r.got[2].body) as { subject: string }).subject).toBe(ids[2]);
    } finally {
      await r.close();
    }
  });
});
