module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'auth', rootDir: __dirname };
