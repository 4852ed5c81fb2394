import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DOCUMENTED_SERVICES } from '@dtp/testing';
import { buildDocument, documentPath, documentText, OPENAPI_SERVICES, OpenApiService } from '../openapi';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function resolve(doc: Json, node: Json | undefined): Json | undefined {
  let current = node;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i += 1) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: Json | undefined, key: string) => at?.[key], doc);
  }
  return current;
}

/** A schema that says something: a type other than a bare object, properties, items, a composition or an enum. */
function meaningful(doc: Json, schema: Json | undefined): boolean {
  const s = resolve(doc, schema);
  if (!s) return false;
  if (s.oneOf || s.anyOf || s.allOf || s.enum || s.const !== undefined) return true;
  if (s.type === 'array') return meaningful(doc, s.items);
  if (s.type === 'object' || s.properties) return Object.keys(s.properties ?? {}).length > 0 || s.additionalProperties !== undefined;
  return typeof s.type === 'string' || Array.isArray(s.type) || s.format === 'binary';
}

function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ method, path, op: (item as Json)[method] as Json })),
  );
}

const documents = new Map<OpenApiService, Json>();
beforeAll(async () => {
  for (const service of OPENAPI_SERVICES) documents.set(service, (await buildDocument(service)) as unknown as Json);
});

/** The services whose documents are complete: their answers are contract-checked in every test too. */
const COMPLETE = OPENAPI_SERVICES.filter((s) => DOCUMENTED_SERVICES.includes(s));

describe.each(OPENAPI_SERVICES)('openapi/%s.json', (service) => {
  it('is what the code builds (run `npm run openapi` after changing an endpoint or a DTO)', () => {
    expect(readFileSync(documentPath(service), 'utf8')).toBe(documentText(documents.get(service) as never));
  });

  it('is OpenAPI 3.1 with servers, and every operation has a unique readable operationId, a summary and a tag', () => {
    const doc = documents.get(service)!;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers?.[0]?.url).toMatch(/^https?:\/\//);
    const ids = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect([where, op.operationId]).toEqual([where, expect.stringMatching(/^[A-Za-z][A-Za-z0-9]*$/)]);
      expect([where, ids.has(op.operationId)]).toEqual([where, false]);
      ids.add(op.operationId);
      expect([where, typeof op.summary === 'string' && op.summary.length > 0]).toEqual([where, true]);
      expect([where, (op.tags ?? []).length > 0]).toEqual([where, true]);
    }
  });
});

const completeness = (service: OpenApiService) => {
  it('every request body, parameter and response has a schema that says something, and every operation an example', () => {
    const doc = documents.get(service)!;
    const gaps: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const param of op.parameters ?? []) {
        const p = resolve(doc, param)!;
        if (!meaningful(doc, p.schema)) gaps.push(`${where}: parameter ${p.name} has no schema`);
      }
      let examples = 0;
      const body = resolve(doc, op.requestBody);
      if (body) {
        for (const [type, media] of Object.entries((body.content ?? {}) as Json)) {
          if (!meaningful(doc, media.schema)) gaps.push(`${where}: request body ${type} has no schema`);
          if (media.example !== undefined || media.examples !== undefined) examples += 1;
        }
        // RFC 6749 5.2: the token endpoint answers a bad body with 400 `invalid_request`, never with 422.
        const bodyErrors = path === '/oauth/token' ? '400' : '422';
        if (!op.responses[bodyErrors]) gaps.push(`${where}: takes a body but documents no ${bodyErrors}`);
      }
      const statuses = Object.keys(op.responses ?? {});
      if (!statuses.some((s) => s.startsWith('2') || s.startsWith('3'))) gaps.push(`${where}: no success response`);
      for (const status of statuses) {
        const response = resolve(doc, op.responses[status])!;
        const content = (response.content ?? {}) as Json;
        if (status !== '204' && !status.startsWith('3') && Object.keys(content).length === 0) gaps.push(`${where}: ${status} has no content`);
        for (const [type, media] of Object.entries(content)) {
          if (!meaningful(doc, media.schema)) gaps.push(`${where}: ${status} ${type} has no schema`);
          if (status.startsWith('2') && (media.example !== undefined || media.examples !== undefined)) examples += 1;
        }
      }
      // Neither a body nor a success body (204): the parameters are all there is to exemplify.
      if (!body && statuses.every((s) => !s.startsWith('2') || s === '204')) {
        examples += (op.parameters ?? []).filter((param: Json) => resolve(doc, param)?.schema?.example !== undefined).length;
      }
      if (examples === 0) gaps.push(`${where}: no example (request body, success response, or the parameters of a 204)`);
    }
    expect(gaps).toEqual([]);
  });
};

if (COMPLETE.length > 0) {
  describe.each(COMPLETE)('openapi/%s.json is complete', completeness);

  // The linters an integrator runs, as CLIs, with the committed configurations (redocly.yaml, .spectral.js), whose
  // comments explain every rule switched off or narrowed. Each prints its findings on failure.
  const root = path.join(__dirname, '..', '..');
  const files = COMPLETE.map((s) => path.join('openapi', `${s}.json`));
  const cli = (pkg: string, bin: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), bin);

  it.each(files)('%s: Redocly CLI lints it clean (redocly.yaml)', (file) => {
    const run = spawnSync(process.execPath, [cli('@redocly/cli', 'bin/cli.js'), 'lint', '--format=json', file], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer?: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect({ status: run.status, totals: report.totals, problems }).toMatchObject({ status: 0, totals: { errors: 0, warnings: 0 }, problems: [] });
  });

  it(`${COMPLETE.join(', ')}: Spectral with the OWASP API Security ruleset finds nothing at warning level (.spectral.js)`, () => {
    const run = spawnSync(
      process.execPath,
      [cli('@stoplight/spectral-cli', 'dist/index.js'), 'lint', '--fail-severity=warn', '--format=json', '--quiet', ...files],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    const findings = (JSON.parse(run.stdout) as { code: string; severity: number; source: string; path: string[]; message: string }[])
      .filter((f) => f.severity <= 1)
      .map((f) => `${path.basename(f.source)} ${f.code} ${f.path.join('/')}: ${f.message}`);
    expect({ status: run.status, findings }).toEqual({ status: 0, findings: [] });
  });
}
