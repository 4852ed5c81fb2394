// The e2e tests start four processes and push thousands of events through the Kafka peer: they get three minutes
// each. (`testTimeout` in a project's Jest config is a global option, ignored when the root config runs the
// projects, so it is set here, per test file of this project.)
jest.setTimeout(180_000);
