module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'auth-guard', rootDir: __dirname };
