/**
 * `npm run bench`: runs every benchmark in bench/*.bench.ts and prints one JSON line per figure:
 * {"name", "value", "unit", "anchor", "ratio"}. Pass names to run a subset: `npm run bench -- platform`.
 * Benchmarks start what they measure themselves (embedded PostgreSQL, services on loopback ports).
 */
import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import path from 'node:path';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The same machine's reference figure measured in the same run, or null when there is none. */
  anchor: number | null;
  ratio: number | null;
}

export type Benchmark = (report: (f: Figure) => void) => Promise<void>;

async function main() {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  for (const file of files) {
    const mod = (await import(path.join(__dirname, file))) as { default: Benchmark };
    process.stderr.write(`# ${file}\n`);
    await mod.default((f) => process.stdout.write(`${JSON.stringify(f)}\n`));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
