import { runnerArguments, START_HELP, START_KAFKA_HELP } from '../runner-args';

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
