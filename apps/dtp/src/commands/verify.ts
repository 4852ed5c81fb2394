import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIAMOND_ID_PATTERN, type CustodyCheckpoint } from '@dtp/domain';
import { type CustodyKeys, fetchAndVerify, type FetchAndVerifyOptions, verifyCredential } from '@dtp/verify';
import { clientFor, configDir, resolveProfile } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { STATE_FILE_NAME } from '../choices';
import { CliIo, printJson, printTable } from '../io';

export interface VerifyCommandOptions {
  profile?: string;
  json: boolean;
  /** The state file (default `<config dir>/custody-checkpoints.json`). */
  state?: string;
  /** The JWKS to trust: a URL or a file (default `{platform_url}/.well-known/custody-keys.json`). */
  keys?: string;
  /** Seconds to keep asking while the log has not caught up (custody 404, or a record newer than its checkpoint; default 0). */
  wait?: number;
}

/** The last verified checkpoint of each log (by log_id): a later run must find a log that only grew since. */
interface StateFile {
  logs: Record<string, CustodyCheckpoint>;
}

/**
 * `dtp verify <diamond_id>`: fetches the diamond's custody answer and current record from search (a
 * non-participant's token), the custody keys from platform (or --keys), and checks them with @dtp/verify: the
 * checkpoint's signature, every entry hash, link and inclusion proof, the record against the latest entry, and -
 * when a checkpoint of the same log was verified before - the consistency proof from it (a rolled-back or
 * rewritten log fails). Exit 0 with a summary; 1 naming the first broken link (or when a request failed).
 */
export async function verifyDiamond(io: CliIo, id: string, opts: VerifyCommandOptions): Promise<ExitCode> {
  if (!DIAMOND_ID_PATTERN.test(id)) throw new UsageError(`"${id}" is not a diamond id (lowercase letters and digits, 20 to 98 characters)`);
  const stateFile = path.resolve(io.cwd, opts.state ?? path.join(configDir(io.env), STATE_FILE_NAME));
  const state = readState(stateFile);
  const { name, profile } = resolveProfile(io.env, opts.profile);
  let keys: Pick<FetchAndVerifyOptions, 'keys' | 'keysUrl'>;
  if (opts.keys && /^https?:\/\//i.test(opts.keys)) keys = { keysUrl: opts.keys };
  else if (opts.keys) keys = { keys: readKeys(path.resolve(io.cwd, opts.keys)) };
  else if (profile.platform_url) keys = { keysUrl: `${profile.platform_url.replace(/\/+$/, '')}/.well-known/custody-keys.json` };
  else throw new UsageError(`profile "${name}" has no platform URL (DTP_PLATFORM_URL) to fetch the custody keys from: set it, or pass --keys <url-or-file>`);

  const dtp = clientFor(io, opts.profile, 'search');
  const search = profile.search_url!.replace(/\/+$/, '');
  const token = await dtp.tokens!.getToken(dtp.audience('search'));
  const diamond = `${search}/v1/diamonds/${encodeURIComponent(id)}`;
  const check = () =>
    fetchAndVerify({
      ...keys,
      custodyUrl: `${diamond}/custody`,
      recordUrl: diamond,
      consistencyUrl: `${search}/v1/custody/consistency`,
      headers: { authorization: `Bearer ${token}`, 'x-request-id': randomUUID() },
      diamondId: id,
      known: (logId) => state.logs[logId],
    });
  const until = Date.now() + (opts.wait ?? 0) * 1000;
  let result = await check();
  // A change made since the last checkpoint: not in the log (404, or a record newer than it) until the next one.
  while (!result.ok && result.failure.pending && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    result = await check();
  }

  if (!result.ok) {
    const { failure } = result;
    if (opts.json) printJson(io, { ok: false, diamond_id: id, failure });
    if (failure.code === 'fetch') io.err(`error: could not check diamond ${id}: ${failure.message}\n`);
    else io.err(`verification FAILED (${failure.code}${failure.leaf_index === undefined ? '' : `, leaf ${failure.leaf_index}`}): ${failure.message}\n`);
    return EXIT.failure;
  }

  const checkpoint = result.answer!.checkpoint;
  const before = state.logs[checkpoint.log_id];
  const remembered = !before || checkpoint.tree_size >= before.tree_size;
  if (remembered) {
    state.logs[checkpoint.log_id] = checkpoint;
    writeState(stateFile, state);
  }
  const { answer: _answer, ...verified } = result;
  if (opts.json) {
    printJson(io, { ...verified, state: { file: stateFile, previous_tree_size: before?.tree_size ?? null } });
    return EXIT.ok;
  }
  const own = verified.chain.filter((s) => !s.ancestor).length;
  io.out(
    `Verified diamond ${id}: ${verified.entries} custody ${verified.entries === 1 ? 'entry' : 'entries'} (${own} of this diamond, ${verified.entries - own} of its ancestors); every entry hash, link and inclusion proof checked.\n`,
  );
  io.out(`  checkpoint:  tree size ${checkpoint.tree_size} at ${checkpoint.timestamp}, signed by key ${verified.checkpoint.kid} (log ${checkpoint.log_id})\n`);
  io.out(
    `  record:      ${verified.record === 'matched' ? 'matches the latest entry' : verified.record === 'deleted' ? 'none: the diamond was deleted, as the latest entry says' : 'not checked'}\n`,
  );
  io.out(
    `  consistency: ${before ? `the log extends tree size ${before.tree_size}, verified before` : 'first checkpoint of this log seen here'}; remembered in ${stateFile}\n`,
  );
  io.out('  chain, oldest first:\n');
  printTable(
    io,
    ['    leaf', 'occurred_at', 'action', 'of'],
    verified.chain.map((s) => [`    ${s.leaf_index}`, s.occurred_at, s.action, s.ancestor ? 'an ancestor' : 'this diamond']),
  );
  return EXIT.ok;
}

/**
 * `dtp verify --credential FILE`: checks an origin credential (the JWT text of `/v1/diamonds/{id}/credential`) with
 * @dtp/verify's verifyCredential against the custody keys: from --keys FILE, nothing else is read (offline); from a URL
 * or the profile's platform URL otherwise. Exit 0 with a summary; 1 naming the member that does not hold.
 */
export async function verifyCredentialFile(io: CliIo, file: string, opts: Pick<VerifyCommandOptions, 'keys' | 'json' | 'profile'>): Promise<ExitCode> {
  const where = path.resolve(io.cwd, file);
  let jwt: string;
  try {
    jwt = readFileSync(where, 'utf8').trim();
  } catch (err) {
    throw new UsageError(`--credential ${file}: ${(err as Error).message}`);
  }
  let keys: CustodyKeys;
  if (opts.keys && !/^https?:\/\//i.test(opts.keys)) keys = readKeys(path.resolve(io.cwd, opts.keys));
  else {
    let url = opts.keys;
    if (!url) {
      const { name, profile } = resolveProfile(io.env, opts.profile);
      if (!profile.platform_url)
        throw new UsageError(`profile "${name}" has no platform URL (DTP_PLATFORM_URL) to fetch the custody keys from: set it, or pass --keys <url-or-file>`);
      url = `${profile.platform_url.replace(/\/+$/, '')}/.well-known/custody-keys.json`;
    }
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' } });
    } catch (err) {
      io.err(`error: could not fetch the custody keys from ${url}: ${(err as Error).message}\n`);
      return EXIT.failure;
    }
    if (!res.ok) {
      io.err(`error: could not fetch the custody keys from ${url}: HTTP ${res.status}\n`);
      return EXIT.failure;
    }
    keys = (await res.json()) as CustodyKeys;
  }
  const result = await verifyCredential(jwt, { keys });
  if (!result.ok) {
    if (opts.json) printJson(io, { ok: false, credential: where, failure: result.failure });
    io.err(`credential verification FAILED (${result.failure.code}): ${result.failure.message}\n`);
    return EXIT.failure;
  }
  const s = result.credential.credentialSubject;
  if (opts.json) {
    printJson(io, { ok: true, summary: result.summary, kid: result.kid, checkpoint_kid: result.checkpoint_kid, credential: result.credential });
    return EXIT.ok;
  }
  io.out(`${result.summary}\n`);
  io.out(`  subject:      ${s.id}\n`);
  io.out(`  origin:       ${s.origin_status === 'confirmed' ? s.origin_countries.join(', ') : 'not confirmed yet (no country claimed)'}\n`);
  io.out(`  carats:       ${s.carats ?? 'unknown'}\n`);
  io.out(`  state:        ${s.lifecycle_state}\n`);
  io.out(`  report:       ${s.grader_report_number ? `${s.grader_report_number}${s.grading_lab ? ` (${s.grading_lab})` : ''}` : 'none'}\n`);
  io.out(
    `  custody:      entry ${s.custody.entry_hash} at leaf ${s.custody.leaf_index}, in the checkpoint of ${s.custody.checkpoint.tree_size} entries (log ${s.custody.checkpoint.log_id})\n`,
  );
  io.out(`  issued:       ${result.credential.validFrom} by ${result.credential.issuer}, key ${result.kid}\n`);
  return EXIT.ok;
}

function readState(file: string): StateFile {
  if (!existsSync(file)) return { logs: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`the state file ${file} is not valid JSON (${(err as Error).message}): fix or remove it`);
  }
  const logs = (parsed as Partial<StateFile> | null)?.logs;
  if (!logs || typeof logs !== 'object' || Array.isArray(logs)) throw new UsageError(`the state file ${file} has no "logs" object: fix or remove it`);
  return { logs };
}

/** Written to a temporary file, then renamed over the old one: never half written. */
function writeState(file: string, state: StateFile): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, file);
}

function readKeys(file: string): CustodyKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--keys ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray((parsed as Partial<CustodyKeys> | null)?.keys)) throw new UsageError(`--keys ${file} is not a JWKS ({"keys": [...]})`);
  return parsed as CustodyKeys;
}
