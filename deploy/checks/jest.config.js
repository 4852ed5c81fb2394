// Offline checks of docker/, k8s/ and deploy/: the Dockerfile's rules, the built output running as the images
// run it, every kustomize overlay rendered and walked, the scripts linted.
module.exports = { ...require('../../tools/testing/jest.preset'), displayName: 'deploy-checks', rootDir: __dirname };
