// Shared Jest settings for every project: swc transpiles TypeScript (decorator metadata on),
// the @dtp/* path aliases of tsconfig.base.json resolve to source.
const path = require('node:path');
const root = path.join(__dirname, '..', '..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  // "@dtp/x/*" -> "./libs/x/src/*": the star is captured and put back.
  const pattern = alias.replace(/\//g, '\\/').replace('*', '(.*)');
  moduleNameMapper[`^${pattern}$`] = path.join(root, target).replace('*', '$1');
}

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper,
  testTimeout: 60000,
  // Contract tests: every answer of a service in a test is checked against its OpenAPI document (#14).
  setupFilesAfterEnv: [path.join(__dirname, 'contract-setup.ts')],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
