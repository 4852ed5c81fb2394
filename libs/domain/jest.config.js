module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'domain', rootDir: __dirname };
