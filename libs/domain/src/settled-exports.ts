/**
 * A barrel's exports (an index.ts of `export * from ...`) as plain values, for the barrel's last statement:
 * `module.exports = settledExports(module.exports)`.
 *
 * Why: the build (swc, to CommonJS) writes each `export *` as a getter per name on the barrel's exports, all through
 * one shared function that reads `from[name]`. With hundreds of names that object is a dictionary and that read is
 * megamorphic, so every use of an import from the barrel in a service (`_domain.makeEnvelope(...)`) called a getter
 * that looked the name up again: about 2 % of a registration's CPU (bench platform, 2026-12-06). Our barrels export
 * functions, classes and constants, never a binding that is assigned again, so the values read once the barrel has
 * loaded are what the getters would keep returning.
 *
 * A name whose value cannot be read yet, or is still undefined (an import cycle that reaches the barrel before one of
 * its modules has finished), keeps the barrel as it is, getters and all. A module that required the barrel inside such a cycle holds the
 * object with getters, which stays correct.
 */
export function settledExports<T extends object>(exports: T): T {
  const settled: Record<string, unknown> = {};
  try {
    for (const name of Object.keys(exports)) {
      const value = (exports as Record<string, unknown>)[name];
      // undefined: a `var` not yet assigned (an enum's, as the build writes it) in a cycle, as above
      if (value === undefined) return exports;
      settled[name] = value;
    }
  } catch {
    return exports;
  }
  Object.defineProperty(settled, '__esModule', { value: true });
  return Object.freeze(settled) as T;
}
