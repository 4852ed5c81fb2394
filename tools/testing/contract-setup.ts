/**
 * Jest setup of every project (jest.preset.js): contract tests (#14). Every application the service kit builds
 * in a test checks each answer against its own OpenAPI document (libs/testing/src/contract.ts); a test during
 * which an answer broke the document fails, naming the operation, the status and what is wrong.
 *
 * Only globals here, so that a project that never starts an application does not load the kit or ajv.
 */
import type { ContractViolation } from '../../libs/testing/src/contract';

const CHECK = Symbol.for('dtp.responseContractCheck');
const STORE = Symbol.for('dtp.contractViolations');
type Globals = { [CHECK]?: unknown; [STORE]?: ContractViolation[] };

(globalThis as Globals)[CHECK] = (service: string, document: object) =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../../libs/testing/src/contract') as typeof import('../../libs/testing/src/contract')).responseContractCheck(service, document as never);

afterEach(() => {
  const broken = (globalThis as Globals)[STORE]?.splice(0) ?? [];
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
