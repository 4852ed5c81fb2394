import { settledExports } from './settled-exports';

/** Exports as the build writes a barrel: `__esModule`, and a getter per name that reads the module's binding. */
function barrel(bindings: Record<string, () => unknown>): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  Object.defineProperty(exports, '__esModule', { value: true });
  for (const [name, read] of Object.entries(bindings)) Object.defineProperty(exports, name, { enumerable: true, get: read });
  return exports;
}

describe('settledExports: a barrel as plain values', () => {
  it('copies every name as its value, marked an ES module, frozen, with no getters left', () => {
    const fn = () => 1;
    class Thing {}
    const settled = settledExports(barrel({ fn: () => fn, Thing: () => Thing, LIMIT: () => 32, Kinds: () => ({ A: 'a' }) }));
    expect(Object.keys(settled)).toEqual(['fn', 'Thing', 'LIMIT', 'Kinds']);
    expect(settled.fn).toBe(fn);
    expect(settled.Thing).toBe(Thing);
    expect(settled.LIMIT).toBe(32);
    expect((settled as { __esModule?: boolean }).__esModule).toBe(true);
    expect(Object.isFrozen(settled)).toBe(true);
    for (const name of Object.keys(settled)) expect(Object.getOwnPropertyDescriptor(settled, name)!.get).toBeUndefined();
  });

  it('keeps the barrel as it is when a name cannot be read yet or is still undefined (an import cycle)', () => {
    const inTdz = barrel({
      ok: () => 1,
      later: () => {
        throw new ReferenceError("Cannot access 'later' before initialization");
      },
    });
    expect(settledExports(inTdz)).toBe(inTdz);
    const unassigned = barrel({ ok: () => 1, Kind: () => undefined });
    expect(settledExports(unassigned)).toBe(unassigned);
  });

  it('is what the libraries export: @dtp/domain has no getters', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const domain = require('@dtp/domain') as Record<string, unknown>;
    expect(Object.isFrozen(domain)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(domain, 'settledExports')!.value).toBe(settledExports);
  });
});
