/**
 * `dtp lookup` against a real auth + search stack: the record reaches search through platform.diamonds.v1 (published
 * here as platform would), then the CLI finds it by report number, inscription and certificate number.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DiamondV1, makeEnvelope, newDiamondId, Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TestStack } from '@dtp/testing';
import { cliEnv, dtp, eventually, stackEnv } from './support';

/** A polished DiamondV1 whose active grading carries the values people hold. */
function gradedRecord(report: string, inscription: string, certificate: string): DiamondV1 {
  const now = new Date().toISOString();
  return {
    assurance_level: 'assured',
    current_stage: 'polished',
    diamond_id: newDiamondId(),
    id: randomUUID(),
    is_current: true,
    lifecycle_state: 'polished',
    participant_timestamp: now,
    polished: { carats: '1.01', shape: 'Round' },
    provenance: { provenance_name: 'Test mine', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
    possession_state: 'held',
    producer_uuid: randomUUID(),
    rough: { carats: '2.5' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: now,
    unlock_status: 'locked',
    version_id: randomUUID(),
    diamond_parent_id: null,
    participant_id: `erp-${randomUUID()}`,
    box_id: 'box-1',
    schema_version: '1',
    grading: [
      {
        id: randomUUID(),
        is_active: true,
        is_selectable: true,
        source: 'user',
        carats: '1.01',
        shape: 'Round',
        grading_lab: 'GIA',
        grader_report_number: report,
        grader_inscription_numbers: [inscription],
        grader_certificate_number: certificate,
      },
    ],
  } as DiamondV1;
}

describe('dtp lookup against a real stack', () => {
  let stack: TestStack;
  let insurer: ParticipantCredentials;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'search'] });
    insurer = await onboard(stack, 'non_participant');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('finds a diamond by report number (with its lab), inscription or certificate number; none found is not an error', async () => {
    const tag = randomBytes(4).toString('hex').toUpperCase();
    const d = gradedRecord(`R-${tag}`, `GIA ${tag}`, `C-${tag}`);
    await stack.transport.publish([
      { topic: Topics.PLATFORM_DIAMONDS, key: d.diamond_id, value: makeEnvelope({ event_type: 'diamond.upserted', data: d, revision: 1 }) },
    ]);
    const env = cliEnv(stackEnv(stack, insurer));
    const found = await eventually(async () => {
      const run = await dtp(['lookup', '--report-number', `r-${tag.toLowerCase()}`, '--json'], { env });
      expect(run.code).toBe(0);
      const answer = JSON.parse(run.stdout) as { results: DiamondV1[] };
      return answer.results.length > 0 ? answer : undefined;
    }, 'the diamond in search');
    expect(found).toEqual({ results: [d] });

    const table = await dtp(['lookup', '--report-number', `R-${tag}`, '--lab', 'gia'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/diamond_id\s+lifecycle_state\s+carats\s+shape\s+grading_lab\s+report_number/);
    expect(table.stdout).toContain(d.diamond_id);
    expect(table.stdout).toMatch(new RegExp(`polished\\s+1\\.01\\s+Round\\s+GIA\\s+R-${tag}`));

    for (const args of [
      ['--inscription', `gia ${tag.toLowerCase()}`],
      ['--certificate-number', `C-${tag}`],
    ]) {
      const run = await dtp(['lookup', ...args, '--json'], { env });
      expect({ args, code: run.code, ids: (JSON.parse(run.stdout) as { results: DiamondV1[] }).results.map((r) => r.diamond_id) }).toEqual({
        args,
        code: 0,
        ids: [d.diamond_id],
      });
    }

    const none = await dtp(['lookup', '--report-number', `R-${tag}`, '--lab', 'HRD'], { env });
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'no diamond found\n' });
    // The service's refusal (an unknown lab) is exit 1 with its reason.
    const refused = await dtp(['lookup', '--report-number', `R-${tag}`, '--lab', 'Nope'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('grading_lab must be one of');
  });
});
