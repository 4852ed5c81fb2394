module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'sdk', rootDir: __dirname };
