/** `npm run auth:cli -- <command>`: onboarding, credentials and key rotation from a shell (see cli/commands.ts). */
import 'reflect-metadata';
import { runCli } from './cli/commands';

runCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`auth cli failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
