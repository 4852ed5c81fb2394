import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, sqlRows, TestStack, tokenFor } from '@dtp/testing';
import { cliEnv, dtp, eventually, stackEnv, tempDir } from './support';

/**
 * `dtp verify` against the real services (auth, platform, search): the CLI finds the routes, tokens and keys the
 * services really serve. The tamper cases are in verify.spec.ts (a test double serves forged answers).
 */
describe('dtp verify against a real stack', () => {
  let stack: TestStack;
  let producer: ParticipantCredentials;
  let maker: ParticipantCredentials;
  let insurer: ParticipantCredentials;
  const env = (who: ParticipantCredentials) => cliEnv(stackEnv(stack, who));

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform', 'search'], env: { platform: { CUSTODY_CHECKPOINT_INTERVAL_MS: '200' } } });
    [producer, maker, insurer] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'manufacturer'), onboard(stack, 'non_participant')]);
    await eventually(
      async () =>
        (await sqlRows(stack.databases.platform!, 'SELECT 1 FROM participants WHERE participant_id = $1', [maker.participant_id])).length > 0
          ? true
          : undefined,
      'the manufacturer known to platform',
    );
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('verifies a polished diamond back to its rough parent; a second run checks the log only grew', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'rough.csv');
    writeFileSync(file, 'box_id,participant_id,participant_timestamp,rough.carats,rough.colour\nB,B-1,2024-05-02T08:00:00Z,3.1,G\n');
    expect((await dtp(['rough', 'import', file], { env: env(producer) })).code).toBe(0);
    const [{ diamond_id: rough }] = parse(readFileSync(path.join(dir, 'rough.result.csv')), { columns: true }) as { diamond_id: string }[];
    const shipment = JSON.parse(
      (await dtp(['ship', rough, '--to', maker.participant_id, '--name', 'to cut', '--type', 'rough', '--json'], { env: env(producer) })).stdout,
    ) as { id: string };
    expect((await dtp(['accept', shipment.id], { env: env(maker) })).code).toBe(0);
    const makerToken = await tokenFor(stack, maker, 'platform');
    const res = await fetch(`${stack.urls.platform}/diamonds/polished/create`, {
      method: 'POST',
      headers: { authorization: makerToken, 'content-type': 'application/json' },
      body: JSON.stringify({
        parent_diamond_id: rough,
        participant_id: 'P-1',
        participant_timestamp: '2024-05-20T15:00:00Z',
        polished: { carats: '1.02', shape: 'Round', colour: 'E', clarity: 'VS1' },
      }),
    });
    expect(res.status).toBe(200);
    const polished = ((await res.json()) as { diamond_id: string }).diamond_id;
    const state = path.join(dir, 'state.json');

    const first = await dtp(['verify', polished, '--state', state, '--json', '--wait', '30'], { env: env(insurer) });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const firstOut = JSON.parse(first.stdout) as { ok: boolean; chain: { action: string; ancestor?: boolean }[] };
    expect(firstOut.ok).toBe(true);
    // The rough's registration, shipment and acceptance, its polishing, then the polished stone's registration.
    expect(firstOut.chain.map((s) => s.action)).toEqual(['registered', 'shipped', 'accepted', 'polished', 'registered']);

    const unlock = await fetch(`${stack.urls.platform}/diamonds/${polished}/unlock`, { method: 'POST', headers: { authorization: makerToken } });
    expect(unlock.status).toBeLessThan(300);
    const second = await eventually(
      async () => {
        const run = await dtp(['verify', polished, '--state', state, '--json', '--wait', '30'], { env: env(insurer) });
        const out = run.code === 0 ? (JSON.parse(run.stdout) as { chain: { action: string }[]; state: { previous_tree_size: number } }) : undefined;
        return out?.chain.some((s) => s.action === 'unlocked') ? out : undefined;
      },
      'verified again after the unlock',
      60_000,
    );
    expect(second.state.previous_tree_size).toBeGreaterThan(0);
    expect((await dtp(['verify', rough, '--state', state], { env: env(insurer) })).code).toBe(0);
  });
});
