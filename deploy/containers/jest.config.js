// The real images, run as containers the way the kind overlay's manifests run them (deploy/containers/README.md):
// built by deploy/images.sh on a Docker engine this stage starts, then smoke-tested and crashed. Long timeouts: a
// cold image build on two cores takes minutes (a cached one seconds).
module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'deploy-containers', rootDir: __dirname, testTimeout: 600_000 };
