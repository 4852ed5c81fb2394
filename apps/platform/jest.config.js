module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'platform', rootDir: __dirname };
