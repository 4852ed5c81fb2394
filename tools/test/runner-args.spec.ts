import { runnerArguments, START_FLAGS, START_HELP, START_KAFKA_HELP } from '../runner-args';

/** `npm start` and `npm run start:kafka` (issue 16: `start:kafka -- --help` started everything). */
describe('npm start / start:kafka arguments', () => {
  const run = (argv: string[]) => {
    let out = '';
    let err = '';
    const code = runnerArguments('npm run start:kafka', START_KAFKA_HELP, argv, { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  };

  it('no arguments: go on (null)', () => {
    expect(run([])).toEqual({ code: null, out: '', err: '' });
  });

  it('--help and -h print what the runner reads and exit 0, starting nothing', () => {
    for (const flag of ['--help', '-h']) {
      const r = run([flag]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^Usage: npm run start:kafka \[options\]/);
      expect(r.out).toContain('KAFKA_BROKERS');
      expect(r.out).toContain('DTP_DATA_DIR');
    }
    expect(START_HELP).toContain('DTP_DATA_DIR');
  });

  it('anything else is a usage error: exit 2 with the reason and the usage', () => {
    for (const argv of [['--bogus'], ['platform']]) {
      const r = run(argv);
      expect([argv, r.code]).toEqual([argv, 2]);
      expect(r.err).toMatch(/^error: (unknown option '--bogus'|too many arguments)/);
      expect(r.err).toContain('Usage: npm run start:kafka');
    }
  });
});

describe('npm start -- --tls', () => {
  it('takes --tls (and says so in --help); start:kafka does not', () => {
    const given: Record<string, boolean> = {};
    expect(runnerArguments('npm start', START_HELP, ['--tls'], { out: () => undefined, err: () => undefined }, START_FLAGS, given)).toBeNull();
    expect(given).toEqual({ tls: true });
    let help = '';
    expect(runnerArguments('npm start', START_HELP, ['--help'], { out: (s) => (help += s), err: () => undefined }, START_FLAGS)).toBe(0);
    expect(help).toContain('--tls');
    expect(runnerArguments('npm run start:kafka', START_KAFKA_HELP, ['--tls'], { out: () => undefined, err: () => undefined })).toBe(2);
  });
});
