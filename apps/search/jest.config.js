module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'search', rootDir: __dirname };
