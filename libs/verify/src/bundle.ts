import { existsSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

let cached: Promise<string> | undefined;

/** The node_modules directory a package is installed in, as Node resolves it from here. */
function nodeModulesOf(pkg: string): string {
  const file = require.resolve(pkg);
  const at = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  return at < 0 ? path.dirname(file) : file.slice(0, at + '/node_modules'.length);
}

/**
 * The browser bundle of @dtp/verify (browser.ts: defines `globalThis.DtpVerify`), built in memory with esbuild
 * (browser platform, one minified IIFE script, about 50 kB) on the first call and kept. Node only; works from the
 * TypeScript sources and from the compiled dist/ (browser.js beside this file).
 */
export function buildBrowserBundle(): Promise<string> {
  cached ??= (async () => {
    const ts = path.join(__dirname, 'browser.ts');
    const entry = existsSync(ts) ? ts : path.join(__dirname, 'browser.js');
    const out = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: ['es2020'],
      minify: true,
      write: false,
      legalComments: 'none',
      logLevel: 'silent',
      // jose and canonicalize from wherever Node finds them (the compiled dist/ may not sit below node_modules).
      nodePaths: [nodeModulesOf('canonicalize'), nodeModulesOf('jose')],
    });
    return out.outputFiles[0].text;
  })().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}
