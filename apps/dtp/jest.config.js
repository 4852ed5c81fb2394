module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'dtp', rootDir: __dirname };
