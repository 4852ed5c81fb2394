// Runs TypeScript sources directly (used by `npm start`, the CLIs and the benchmarks):
// swc transpiles on load (decorator metadata from tsconfig.base.json), tsconfig-paths maps @dtp/* aliases.
const path = require('node:path');
const root = path.join(__dirname, '..');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || path.join(root, 'tsconfig.base.json');
require('@swc-node/register');
const tsconfig = require(path.join(root, 'tsconfig.base.json'));
require('tsconfig-paths').register({ baseUrl: root, paths: tsconfig.compilerOptions.paths });
