import { existsSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

let cached: Promise<string> | undefined;

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
    });
    return out.outputFiles[0].text;
  })().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}
