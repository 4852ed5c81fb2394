// Shared Jest settings for every project: swc transpiles TypeScript (decorator metadata on),
// the @dtp/* path aliases of tsconfig.base.json resolve to source.
const path = require('node:path');
const root = path.join(__dirname, '..', '..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));

/** Dependencies published as ES modules only (`"type": "module"`). */
const ESM_PACKAGES = '@nestjs/(passport|config)';

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = path.join(root, target);
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
    // ES-module-only packages (plain `node` loads them with require(); Jest's module system cannot): to CommonJS.
    [`/node_modules/${ESM_PACKAGES}/.+\\.js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_PACKAGES}/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper,
  testTimeout: 60000,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
