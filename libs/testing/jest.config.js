module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'testing', rootDir: __dirname };
