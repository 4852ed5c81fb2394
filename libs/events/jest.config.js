module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'events', rootDir: __dirname };
