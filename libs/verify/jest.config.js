module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'verify', rootDir: __dirname };
