module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'database', rootDir: __dirname };
