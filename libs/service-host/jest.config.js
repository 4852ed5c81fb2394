module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'service-host', rootDir: __dirname };
