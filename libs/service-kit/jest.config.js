module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'service-kit', rootDir: __dirname };
