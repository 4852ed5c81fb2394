#!/usr/bin/env node
// `node tools/openapi-lint.mjs [file...]`: lints the committed OpenAPI documents (openapi/*.json by default) with
// Redocly's maintained linter (@redocly/openapi-core, the engine of `redocly lint`), "recommended" rules plus the
// ones below. Prints each problem (file, JSON pointer, rule, message) and exits 1 on any error or warning.
// tools/test/openapi.spec.ts runs it, so `npm test` fails on a document that does not lint clean.
import { createConfig, lint } from '@redocly/openapi-core';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, 'openapi');
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => path.join(dir, f));

const config = await createConfig({
  extends: ['recommended'],
  rules: {
    // Operations are described by a summary; a description is optional.
    'operation-description': 'off',
    // Not every operation has a client error (the JWKS is a GET without parameters); tools/test/openapi.spec.ts
    // holds every operation with a body or parameters to its documented 422/404 instead.
    'operation-4xx-response': 'off',
    'no-invalid-media-type-examples': 'error',
    'no-unused-components': 'warn',
    'operation-operationId-unique': 'error',
    'operation-operationId-url-safe': 'error',
    // The committed documents name the local defaults (http://localhost:3002, ...) as their server; a running
    // service serves its document with its configured public address at /docs/json.
    'no-server-example.com': 'off',
    // The spec's own paths: /diamonds/{diamond_id}/files/{kind} and /diamonds/{diamond_id}/{grading_id}/select
    // differ in their literal last segment, which is how the router tells them apart.
    'no-ambiguous-paths': 'off',
    'no-server-trailing-slash': 'error',
    // Security is declared globally (OAuth 2.0) and per operation ([] for the public ones).
    'security-defined': 'error',
  },
});

let problems = 0;
for (const file of files) {
  const results = await lint({ ref: file, config });
  for (const p of results) {
    problems += 1;
    const where = p.location?.[0]?.pointer ?? '';
    process.stdout.write(`${path.relative(root, file)} ${where} [${p.severity} ${p.ruleId}] ${p.message}\n`);
  }
}
process.stdout.write(problems === 0 ? `openapi lint: ${files.length} documents, no problems\n` : `openapi lint: ${problems} problems\n`);
process.exit(problems === 0 ? 0 : 1);
