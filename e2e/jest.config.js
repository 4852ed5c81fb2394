// Cross-process end-to-end tests: the four services as separate processes over the Kafka peer.
const preset = require('../tools/testing/jest.preset');

module.exports = {
  ...preset,
  displayName: 'e2e',
  rootDir: __dirname,
  setupFilesAfterEnv: [...preset.setupFilesAfterEnv, '<rootDir>/test/support/timeout.ts'],
};
