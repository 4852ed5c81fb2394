/**
 * Jest setup of every project (jest.preset.js): contract tests (#14). Every application the service kit builds
 * in a test checks each answer against its own OpenAPI document (libs/testing/src/contract.ts); a test during
 * which an answer broke the document fails, naming the operation, the status and what is wrong. Likewise every
 * value the global validation pipe validates is validated by class-validator as well as judged by its short cut
 * (ValidationVerdict), and each instance it makes with plainToDto is made by class-transformer too; a test during
 * which they disagreed fails.
 *
 * Only globals here, so that a project that never starts an application does not load the kit or ajv.
 */
import type { ContractViolation } from '../../libs/testing/src/contract';

const CHECK = Symbol.for('dtp.responseContractCheck');
const STORE = Symbol.for('dtp.contractViolations');
// The global validation pipe's short cut (libs/service-kit validation.pipe.ts): every value it validates in a test
// is validated by class-validator too, and a verdict that disagrees is kept here; so is an instance that plainToDto
// made otherwise than class-transformer (with its `message`).
const VERDICT_CHECK = Symbol.for('dtp.validationVerdictCheck');
// An answer sent as its prewritten JSON text (libs/service-kit prewritten-json.ts) is compared with JSON.stringify's.
const PREWRITTEN_CHECK = Symbol.for('dtp.prewrittenJsonCheck');
type Disagreement = { target: string; passes: boolean; errors: number } | { target: string; message: string };
type Globals = {
  [CHECK]?: unknown;
  [STORE]?: ContractViolation[];
  [VERDICT_CHECK]?: (d: Disagreement) => void;
  [PREWRITTEN_CHECK]?: (d: Disagreement) => void;
};
const disagreements: Disagreement[] = [];
(globalThis as Globals)[VERDICT_CHECK] = (d) => disagreements.push(d);
(globalThis as Globals)[PREWRITTEN_CHECK] = (d) => disagreements.push(d);

(globalThis as Globals)[CHECK] = (service: string, document: object) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../../libs/testing/src/contract') as typeof import('../../libs/testing/src/contract')).responseContractCheck(service, document as never);

afterEach(() => {
  // Both stores are emptied first, so that what one test did is never reported in the next one.
  const disagreed = disagreements.splice(0);
  const broken = (globalThis as Globals)[STORE]?.splice(0) ?? [];
  if (disagreed.length > 0) {
    const lines = disagreed
      .slice(0, 20)
      .map((d) =>
        'message' in d
          ? `  ${d.target}: ${d.message}`
          : `  ${d.target}: ValidationVerdict ${d.passes ? 'passed' : 'refused'} it, class-validator found ${d.errors} error(s)`,
      );
    throw new Error(
      `a short cut disagreed with the library it stands in for (class-validator or class-transformer: libs/domain validation-verdict.ts, plain-to-dto.ts; JSON.stringify: libs/service-kit prewritten-json.ts):\n${lines.join('\n')}`,
    );
  }
  if (broken.length > 0) {
    const counts = new Map<string, number>();
    for (const v of broken) {
      const line = `${v.service} ${v.operation} -> ${v.status}: ${v.problem}`;
      counts.set(line, (counts.get(line) ?? 0) + 1);
    }
    const lines = [...counts].slice(0, 20).map(([line, n]) => `  ${line}${n > 1 ? ` (${n} times)` : ''}`);
    if (counts.size > 20) lines.push(`  ... and ${counts.size - 20} more`);
    throw new Error(`answers that break the service's OpenAPI document (fix the code or the document):\n${lines.join('\n')}`);
  }
});
