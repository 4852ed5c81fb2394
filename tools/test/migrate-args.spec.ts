import { HelpShown, parseArgs, UsageError } from '../migrate';

/** `npm run migrate` arguments (issue 16: `migrate -- --help` said "unknown argument"). */
describe('npm run migrate arguments', () => {
  it('migrates every service by default, or the named ones once each', () => {
    expect(parseArgs([])).toEqual({ services: ['auth', 'platform', 'search', 'gis'], createDatabase: false, wait: false, timeoutSeconds: 600 });
    expect(parseArgs(['search', 'platform', 'search', '--create-database'])).toEqual({
      services: ['search', 'platform'],
      createDatabase: true,
      wait: false,
      timeoutSeconds: 600,
    });
    expect(parseArgs(['--wait', '--timeout', '30', 'gis'])).toMatchObject({ services: ['gis'], wait: true, timeoutSeconds: 30 });
  });

  it('--help prints the usage (services, options, exit codes) and is not an error', () => {
    let out = '';
    expect(() => parseArgs(['--help'], { out: (s) => (out += s), err: () => undefined })).toThrow(HelpShown);
    expect(out).toMatch(/^Usage: migrate \[options\] \[services\.\.\.\]/);
    expect(out).toContain('--create-database');
    expect(out).toContain('Exit codes: 0 done, 1 failure');
  });

  it('an unknown service or option, or a bad --timeout, is a usage error naming it', () => {
    expect(() => parseArgs(['platfrom'])).toThrow(
      new UsageError("command-argument value 'platfrom' is invalid for argument 'services'. Allowed choices are auth, platform, search, gis."),
    );
    expect(() => parseArgs(['--fast'])).toThrow(UsageError);
    expect(() => parseArgs(['--timeout', '0'])).toThrow(/--timeout <seconds>.*a whole number of seconds/);
    expect(() => parseArgs(['--timeout'])).toThrow(/argument missing/);
  });
});
