module.exports = {
  ...require('./testing/jest.preset'),
  displayName: 'tools',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
};
