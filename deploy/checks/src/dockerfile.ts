import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root } from './tools';

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export const DOCKERFILE = path.join(root, 'docker', 'Dockerfile');

/** Instructions of a Dockerfile: comments dropped, continuation lines joined. */
export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i])) continue;
      line = line.replace(/\\\s*$/, ' ') + lines[i].trim();
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (m) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim(), line: start + 1 });
  }
  return out;
}

/** Global ARGs (before the first FROM) and the stages. */
export function parseDockerfile(text = readFileSync(DOCKERFILE, 'utf8')): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of parseInstructions(text)) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      stages.push({ name: m[2] ?? String(stages.length), from: m[1], instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword === 'ARG') {
        const [k, v] = ins.args.split('=');
        args[k] = v ?? '';
      }
    } else {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  return { args, stages };
}

/** The chain of stages a stage builds on, itself first. */
export function lineage(stages: Stage[], name: string): Stage[] {
  const chain: Stage[] = [];
  for (let s = stages.find((x) => x.name === name); s; s = stages.find((x) => x.name === s!.from)) chain.push(s);
  return chain;
}

/** The last value of an instruction along a stage's lineage (USER, CMD, HEALTHCHECK ...). */
export function effective(stages: Stage[], name: string, keyword: string): Instruction | undefined {
  for (const s of lineage(stages, name)) {
    const found = [...s.instructions].reverse().find((i) => i.keyword === keyword);
    if (found) return found;
  }
  return undefined;
}

/**
 * The environment a stage's containers start with: the `ENV name=value ...` pairs along its lineage, later ones
 * winning (no quoted values: a pair with a space in it throws). The memory benchmark runs the services with the
 * runtime stage's.
 */
export function stageEnv(stages: Stage[], name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of lineage(stages, name).reverse()) {
    for (const ins of s.instructions.filter((i) => i.keyword === 'ENV')) {
      for (const pair of ins.args.split(/\s+/)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s]*)$/.exec(pair);
        if (!m) throw new Error(`line ${ins.line}: cannot read ENV ${ins.args} (name=value pairs, no quotes)`);
        env[m[1]] = m[2];
      }
    }
  }
  return env;
}

/**
 * What a target copies from the build stage (its own COPYs and its lineage's), as [source under /build, destination
 * under /app]: the layout build.spec.ts recreates from a local build. A destination ending in `/` is a directory the
 * sources go into.
 */
export function buildCopies(stages: Stage[], name: string): { source: string; dest: string }[] {
  const out: { source: string; dest: string }[] = [];
  for (const s of lineage(stages, name).reverse()) {
    for (const ins of s.instructions.filter((i) => i.keyword === 'COPY' && i.args.startsWith('--from=build '))) {
      const parts = ins.args.split(/\s+/).slice(1);
      const dest = parts.pop()!;
      for (const source of parts) {
        if (!source.startsWith('/build/')) throw new Error(`line ${ins.line}: COPY from build outside /build: ${source}`);
        out.push({ source: source.slice('/build/'.length), dest: dest.replace(/^\.\//, '') });
      }
    }
  }
  return out;
}
