// One Jest run for the whole workspace: every app and lib is a project; one PostgreSQL for all.
module.exports = {
  projects: [
    '<rootDir>/libs/*/jest.config.js',
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/tools/jest.config.js',
    '<rootDir>/e2e/jest.config.js',
    '<rootDir>/deploy/checks/jest.config.js',
    '<rootDir>/deploy/containers/jest.config.js',
    '<rootDir>/packages/jest.config.js',
  ],
  globalSetup: '<rootDir>/tools/testing/global-setup.mjs',
  globalTeardown: '<rootDir>/tools/testing/global-teardown.mjs',
  reporters: ['default', '<rootDir>/tools/testing/summary-reporter.js'],
  testTimeout: 60000,
};
