module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'blob-store', rootDir: __dirname };
