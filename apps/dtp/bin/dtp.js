#!/usr/bin/env node
// The `dtp` command (package.json "bin"): runs the TypeScript sources through tools/register.js, like `npm run dtp`.
require('../../../tools/register.js');
require('../src/main.ts');
