// The published packages as an integrator gets them (packages/README.md): built and packed by
// tools/build-packages.js, installed from their tarballs into a scratch project outside the workspace (their
// dependencies from the npm registry), then compiled against, required, imported, run and loaded in Chromium.
module.exports = { ...require('../tools/testing/jest.preset'), displayName: 'packages', rootDir: __dirname, testTimeout: 600_000 };
