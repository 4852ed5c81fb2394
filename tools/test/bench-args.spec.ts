import { runtimeLine, selection } from '../../bench/run';

/** `npm run bench` arguments (issue 16: a typo or --help used to run nothing and exit 0). */
describe('npm run bench arguments', () => {
  it('runs every benchmark without names, or exactly the named ones', () => {
    expect(selection([])).toEqual({
      names: ['auth', 'auth-guard', 'deletion', 'dtp-import', 'event-ids', 'gis', 'memory', 'platform', 'restart', 'scale', 'search', 'webhooks'],
    });
    expect(selection(['search', 'platform'])).toEqual({ names: ['search', 'platform'] });
  });

  it('--help prints the usage with the names and exits 0', () => {
    const help = selection(['--help']);
    expect(help).toMatchObject({ exit: 0 });
    expect('text' in help && help.text).toContain('auth, auth-guard, deletion, dtp-import, event-ids, gis, memory, platform, restart, scale, search, webhooks');
    expect(selection(['-h'])).toMatchObject({ exit: 0 });
  });

  it('an unknown name or option exits 2 with the reason and the usage', () => {
    const typo = selection(['platfrom']);
    expect(typo).toMatchObject({ exit: 2 });
    expect('text' in typo && typo.text).toMatch(/^unknown benchmark: platfrom\nusage: npm run bench/);
    const option = selection(['--fast']);
    expect(option).toMatchObject({ exit: 2 });
    expect('text' in option && option.text).toMatch(/--fast/);
  });

  it("starts each benchmark with the node and CPUs that ran it, and says so when that node is not the images'", () => {
    expect(runtimeLine('platform.bench.ts', 'v24.22.3', 2, '24.22.3')).toBe('# platform.bench.ts (node v24.22.3, 2 CPUs)\n');
    expect(runtimeLine('platform.bench.ts', 'v20.20.2', 16, '24.22.3')).toBe(
      '# platform.bench.ts (node v20.20.2, 16 CPUs; the images run node 24.22.3: figures differ by runtime)\n',
    );
    expect(runtimeLine('search.bench.ts', 'v20.20.2', 2, undefined)).toBe('# search.bench.ts (node v20.20.2, 2 CPUs)\n');
  });
});
