module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'gis', rootDir: __dirname };
