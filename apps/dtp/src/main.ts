// `dtp`: the command line on @dtp/sdk (npm run dtp -- <command>, or the package's bin). See docs/sdk.md.
import { runCli } from './cli';
import { processIo } from './io';

runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
