// Cross-process end-to-end tests: the four services as separate processes over the Kafka peer.
module.exports = {
  ...require('../tools/testing/jest.preset'),
  displayName: 'e2e',
  rootDir: __dirname,
  setupFilesAfterEnv: ['<rootDir>/test/support/timeout.ts'],
};
