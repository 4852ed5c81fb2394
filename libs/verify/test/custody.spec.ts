/**
 * verifyCustody on answers built from a synthetic log (domain's Merkle code, a local Ed25519 key): a good answer
 * passes, and each way of tampering is caught, with the right failure code, at the right entry.
 */
import { CompactSign } from 'jose';
import { canonicalJson, CustodyAnswer, recordSha256 } from '@dtp/domain';
import { verifyCustody, VerifyResult } from '../src';
import { clone, newKey, OTHER, POLISHED, ROUGH, sign, SigningKey, SyntheticLog, world } from './synthetic-log';

function failure(r: VerifyResult) {
  if (r.ok) throw new Error(`expected a failure, got ok: ${r.summary}`);
  return r.failure;
}

describe('verifyCustody', () => {
  let key: SigningKey;
  let other: SigningKey;
  let log: SyntheticLog;
  let good: CustodyAnswer;
  const keys = () => ({ keys: [key.publicJwk] });

  beforeAll(async () => {
    [key, other] = await Promise.all([newKey('custody-1'), newKey('custody-1')]);
  });
  beforeEach(async () => {
    log = world();
    good = await log.answer(POLISHED, key);
  });

  describe('a good answer', () => {
    it('passes: the diamond and its ancestor, every entry checked, the record matched', async () => {
      const r = await verifyCustody(good, { diamondId: POLISHED, keys: keys(), record: log.record(POLISHED) });
      if (!r.ok) throw new Error(r.failure.message);
      expect(r.entries).toBe(9);
      expect(r.chain.map((s) => `${s.ancestor ? 'rough' : 'polished'}:${s.action}`)).toEqual([
        'rough:registered',
        'rough:file_attached',
        'rough:shipped',
        'rough:accepted',
        'rough:polished',
        'polished:registered',
        'polished:shipped',
        'polished:accepted',
        'polished:grading_selected',
      ]);
      expect(r.chain.map((s) => s.leaf_index)).toEqual([0, 2, 3, 5, 6, 7, 8, 10, 11]);
      expect(r.checkpoint).toEqual({ log_id: log.logId, tree_size: 13, root_hash: log.rootHex(), timestamp: good.checkpoint.timestamp, kid: 'custody-1' });
      expect(r.record).toBe('matched');
      expect(r.summary).toBe(
        `Verified 9 custody entries (4 of this diamond, 5 of its ancestors) against the log's checkpoint of 13 entries at ${good.checkpoint.timestamp}, ` +
          'signed by key custody-1; the record matches its latest entry.',
      );
      expect(r.summary).not.toContain(POLISHED);
    });

    it('passes for a root diamond (no ancestors), without a record check', async () => {
      const r = await verifyCustody(await log.answer(ROUGH, key), { diamondId: ROUGH, keys: keys() });
      expect(r).toMatchObject({ ok: true, entries: 5, record: 'not_checked' });
    });

    it('passes for a deleted diamond when no record is served', async () => {
      log.change(OTHER, 'deleted');
      const r = await verifyCustody(await log.answer(OTHER, key), { diamondId: OTHER, keys: keys(), record: null });
      expect(r).toMatchObject({ ok: true, record: 'deleted', entries: 5 });
    });

    it('passes with an ES256 key, and picks the key by kid among several', async () => {
      const es = await newKey('custody-es', 'ES256');
      const r = await verifyCustody(await log.answer(POLISHED, es), { diamondId: POLISHED, keys: { keys: [key.publicJwk, es.publicJwk] } });
      expect(r).toMatchObject({ ok: true, checkpoint: { kid: 'custody-es' } });
    });

    it('passes when the answer travelled as JSON', async () => {
      const r = await verifyCustody(JSON.parse(JSON.stringify(good)) as CustodyAnswer, {
        diamondId: POLISHED,
        keys: JSON.parse(JSON.stringify(keys())) as never,
      });
      expect(r.ok).toBe(true);
    });
  });

  describe('a tampered record', () => {
    it('an edited field: record, naming the latest entry', async () => {
      const record = { ...log.record(POLISHED)!, grading: { colour: 'D', clarity: 'IF' } };
      const f = failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), record }));
      expect(f).toMatchObject({ code: 'record', leaf_index: 11 });
      expect(f.pending).toBeUndefined();
      expect(f.message).toContain(`the record served was altered: it hashes to ${recordSha256(record)}`);
    });

    it('an older version served as current: record, naming both versions', async () => {
      const older = log.records.get(good.entries[7].entry.version_id)!;
      const f = failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), record: older }));
      expect(f.code).toBe('record');
      expect(f.message).toMatch(/the record served is version \w+ \(leaf 10\), not the latest version \w+ of the log \(leaf 11\)/);
    });

    it('a version the log does not have (yet): record, saying to try again', async () => {
      const f = failure(
        await verifyCustody(good, { diamondId: POLISHED, keys: keys(), record: { ...log.record(POLISHED)!, version_id: '01jzzzzzzzzzzzzzzzzzzzzzzz' } }),
      );
      expect(f).toMatchObject({ code: 'record', pending: true });
      expect(f.message).toContain('is not in the log');
    });

    it('no record while the log says the diamond exists, or a record of a deleted diamond: record', async () => {
      expect(failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), record: null })).code).toBe('record');
      log.change(OTHER, 'deleted');
      const f = failure(await verifyCustody(await log.answer(OTHER, key), { diamondId: OTHER, keys: keys(), record: { diamond_id: OTHER } }));
      expect(f.code).toBe('record');
      expect(f.message).toContain('is its deletion');
    });

    it("an entry's record hash edited to match a forged record: entry_hash at that entry", async () => {
      const answer = clone(good);
      const forged = { ...log.record(POLISHED)!, grading: { colour: 'D', clarity: 'IF' } };
      answer.entries[8].entry.record_sha256 = recordSha256(forged);
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys(), record: forged }));
      expect(f).toMatchObject({ code: 'entry_hash', leaf_index: 11 });
    });

    it('...and its entry_hash recomputed too: inclusion (not in the signed tree)', async () => {
      const answer = clone(good);
      const forged = { ...log.record(POLISHED)!, grading: { colour: 'D', clarity: 'IF' } };
      answer.entries[8].entry.record_sha256 = recordSha256(forged);
      answer.entries[8].entry_hash = (await import('@dtp/domain')).entryHash(answer.entries[8].entry);
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys(), record: forged }));
      expect(f).toMatchObject({ code: 'inclusion', leaf_index: 11 });
      expect(f.message).toContain('is not in the signed log');
    });
  });

  describe('a removed entry', () => {
    it("from the middle of the diamond's chain: chain, naming the entry whose link breaks", async () => {
      const answer = clone(good);
      answer.entries.splice(7, 1); // polished:accepted (leaf 10)
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'chain', leaf_index: 11 });
      expect(f.message).toContain('entry at leaf 11 (grading_selected of this diamond) links to entry');
      expect(f.message).toContain('an entry is missing');
    });

    it("from the ancestor's chain (its registration): chain", async () => {
      const answer = clone(good);
      answer.entries.splice(0, 1);
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'chain', leaf_index: 2 });
      expect(f.message).toContain(`of ancestor ${ROUGH}`);
    });

    it("the diamond's latest entry: record (the current record is not the log's latest)", async () => {
      const answer = clone(good);
      answer.entries.pop();
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys(), record: log.record(POLISHED) }));
      expect(f.code).toBe('record');
      expect(f.message).toContain('is not in the log');
    });

    it('every entry of the diamond: chain', async () => {
      const answer = clone(good);
      answer.entries = answer.entries.filter((e) => e.entry.diamond_id !== POLISHED);
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'chain', message: `the answer has no entry of diamond ${POLISHED}` });
    });
  });

  describe('a reordered entry', () => {
    it('two entries swapped in the answer: order, at the first out of place', async () => {
      const answer = clone(good);
      [answer.entries[2], answer.entries[3]] = [answer.entries[3], answer.entries[2]];
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'order', leaf_index: 3 });
      expect(f.message).toContain('not in increasing leaf order');
    });

    it('two entries swapped in place (leaf indices exchanged): inclusion', async () => {
      const answer = clone(good);
      const [a, b] = [answer.entries[2], answer.entries[3]];
      [a.entry, b.entry, a.entry_hash, b.entry_hash] = [b.entry, a.entry, b.entry_hash, a.entry_hash];
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'inclusion', leaf_index: 3 });
    });

    it('a log written out of order and signed (an entry linking to a later leaf): chain', async () => {
      const src = new SyntheticLog();
      const a = src.change(ROUGH, 'registered');
      const b = src.change(ROUGH, 'shipped');
      const reordered = new SyntheticLog();
      reordered.appendEntry(b.entry);
      reordered.appendEntry(a.entry);
      const checkpoint = await reordered.checkpoint(key);
      const entries = reordered.entries.map((e) => ({ ...e, inclusion_proof: reordered.inclusion(e.leaf_index) }));
      const f = failure(await verifyCustody({ checkpoint, entries }, { diamondId: ROUGH, keys: keys() }));
      expect(f).toMatchObject({ code: 'chain', leaf_index: 0 });
      expect(f.message).toContain('(shipped of diamond');
      // With the record: the latest entry (by leaf) is not the current state either.
      const f2 = failure(await verifyCustody({ checkpoint, entries: [entries[1]] }, { diamondId: ROUGH, keys: keys(), record: src.record(ROUGH) }));
      expect(f2.code).toBe('record');
    });

    it("an entry of another diamond slipped in (with a valid proof): chain, 'not on the chain'", async () => {
      const answer = clone(good);
      const extra = log.entries[4]; // OTHER unlocked
      answer.entries.splice(3, 0, { ...clone(extra), inclusion_proof: log.inclusion(4) });
      const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'chain', leaf_index: 4 });
      expect(f.message).toContain(`is not on the chain of diamond ${POLISHED}`);
    });
  });

  describe('a forged checkpoint', () => {
    it('signed by another key under the same kid: signature', async () => {
      const f = failure(await verifyCustody(await log.answer(POLISHED, other), { diamondId: POLISHED, keys: keys() }));
      expect(f.code).toBe('signature');
      expect(f.message).toContain('does not verify with published key custody-1');
    });

    it('signed by an unpublished key: signature, naming the kid', async () => {
      const stranger = await newKey('stranger');
      const f = failure(await verifyCustody(await log.answer(POLISHED, stranger), { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'signature', message: expect.stringContaining('no published key has the kid stranger') as string });
    });

    it('a forger who rebuilt the whole tree around a tampered entry and signed it with their own key: signature', async () => {
      const forgedLog = new SyntheticLog();
      for (const e of log.entries) forgedLog.appendEntry(e.leaf_index === 11 ? { ...e.entry, record_sha256: '0'.repeat(64) } : e.entry);
      const forged = await forgedLog.answer(POLISHED, other);
      expect(failure(await verifyCustody(forged, { diamondId: POLISHED, keys: keys() })).code).toBe('signature');
    });

    it("the checkpoint's fields edited (tree size, root, time) beside a genuine JWS: checkpoint", async () => {
      for (const edit of [{ tree_size: 12 }, { root_hash: log.rootHex(12) }, { timestamp: '2030-01-01T00:00:00.000Z' }, { log_id: 'https://evil.example' }]) {
        const answer = { ...clone(good), checkpoint: { ...good.checkpoint, ...edit } };
        const f = failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() }));
        expect(f.code).toBe('checkpoint');
        expect(f.message).toContain("the checkpoint's fields are not what key custody-1 signed");
      }
    });

    it('the JWS payload edited (signature kept): signature', async () => {
      const [h, , s] = good.checkpoint.jws.split('.');
      const body = Buffer.from(canonicalJson({ ...good.checkpoint, jws: undefined, tree_size: 99 })).toString('base64url');
      const answer = { ...clone(good), checkpoint: { ...good.checkpoint, tree_size: 99, jws: `${h}.${body}.${s}` } };
      expect(failure(await verifyCustody(answer, { diamondId: POLISHED, keys: keys() })).code).toBe('signature');
    });

    it('a JWS with alg none or HS256, or not a JWS at all: signature', async () => {
      const payload = Buffer.from(canonicalJson({ log_id: log.logId, tree_size: 13, root_hash: log.rootHex(), timestamp: good.checkpoint.timestamp })).toString(
        'base64url',
      );
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'custody-1' })).toString('base64url')}.${payload}.`;
      const hs = await new CompactSign(Buffer.from(payload, 'base64url')).setProtectedHeader({ alg: 'HS256', kid: 'custody-1' }).sign(new Uint8Array(32));
      for (const jws of [none, hs, 'not-a-jws']) {
        const f = failure(await verifyCustody({ ...clone(good), checkpoint: { ...good.checkpoint, jws } }, { diamondId: POLISHED, keys: keys() }));
        expect(f.code).toBe('signature');
      }
    });

    it('a key published for another algorithm: signature', async () => {
      const f = failure(await verifyCustody(good, { diamondId: POLISHED, keys: { keys: [{ ...key.publicJwk, alg: 'ES256' }] } }));
      expect(f).toMatchObject({ code: 'signature', message: expect.stringContaining('published for ES256') as string });
    });
  });

  describe('a rolled-back log (known checkpoint)', () => {
    it('consistent with an earlier checkpoint: passes, saying so', async () => {
      const earlier = await log.checkpoint(key, 8);
      const r = await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: earlier, consistency: log.consistency(8) } });
      expect(r).toMatchObject({ ok: true, consistent_with: 8 });
      if (r.ok) expect(r.summary).toContain('the log extends the one of 8 entries seen before');
      const same = await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: good.checkpoint, consistency: [] } });
      expect(same).toMatchObject({ ok: true, consistent_with: 13 });
    });

    it('a bigger checkpoint seen before (the log shrank): consistency, a rollback', async () => {
      log.change(POLISHED, 'shipped');
      const bigger = await log.checkpoint(key);
      const rolledBack = await log.answer(POLISHED, key, 13);
      const f = failure(await verifyCustody(rolledBack, { diamondId: POLISHED, keys: keys(), known: { checkpoint: bigger, consistency: [] } }));
      expect(f.code).toBe('consistency');
      expect(f.message).toBe('the log was rolled back: tree size 13 is smaller than 14, seen before');
    });

    it('an earlier checkpoint of a log that was rewritten since (fork): consistency', async () => {
      // The log seen before had other entries from leaf 5 on; the one served now rewrote them.
      const before = new SyntheticLog();
      for (const e of log.entries.slice(0, 5)) before.appendEntry(e.entry);
      before.change(OTHER, 'destroyed');
      before.change(OTHER, 'deleted');
      const seen = await before.checkpoint(key);
      const f = failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: seen, consistency: log.consistency(7) } }));
      expect(f.code).toBe('consistency');
      expect(f.message).toContain('does not contain the tree of size 7 seen before');
    });

    it('the same size seen with another root, a flipped proof step, another log: consistency', async () => {
      const forkedSame = { ...good.checkpoint, root_hash: log.rootHex(12) };
      expect(failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: forkedSame, consistency: [] } })).message).toContain(
        'two different roots for the same tree size 13',
      );
      const earlier = await log.checkpoint(key, 6);
      const proof = log.consistency(6);
      proof[1] = proof[1].replace(/^./, (c) => (c === '0' ? '1' : '0'));
      expect(failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: earlier, consistency: proof } })).code).toBe(
        'consistency',
      );
      const elsewhere = await sign({ log_id: 'https://other.example', tree_size: 6, root_hash: log.rootHex(6), timestamp: earlier.timestamp }, key);
      expect(
        failure(await verifyCustody(good, { diamondId: POLISHED, keys: keys(), known: { checkpoint: elsewhere, consistency: log.consistency(6) } })).message,
      ).toContain('is of log https://other.example');
    });
  });

  describe('format', () => {
    it.each([
      ['not an object', () => null, 'the custody answer is not a JSON object'],
      ['no checkpoint', (a: CustodyAnswer) => ({ entries: a.entries }), 'the custody answer has no checkpoint'],
      ['a negative tree size', (a: CustodyAnswer) => ({ ...a, checkpoint: { ...a.checkpoint, tree_size: -1 } }), 'checkpoint.tree_size is not a whole number'],
      [
        'an upper-case root',
        (a: CustodyAnswer) => ({ ...a, checkpoint: { ...a.checkpoint, root_hash: a.checkpoint.root_hash.toUpperCase() } }),
        'checkpoint.root_hash is not a lower-case hex SHA-256',
      ],
      ['no entries', (a: CustodyAnswer) => ({ checkpoint: a.checkpoint }), 'the custody answer has no entries list'],
      [
        'a proof step that is not hex',
        (a: CustodyAnswer) => ({ ...a, entries: a.entries.map((e, i) => (i === 3 ? { ...e, inclusion_proof: ['zz'] } : e)) }),
        'entries[3].inclusion_proof is not a list of lower-case hex SHA-256',
      ],
      [
        'an entry without action',
        (a: CustodyAnswer) => ({ ...a, entries: a.entries.map((e, i) => (i === 1 ? { ...e, entry: { ...e.entry, action: undefined } } : e)) }),
        'entries[1].entry.action is not a text',
      ],
    ])('%s: format', async (_name, edit, message) => {
      const f = failure(await verifyCustody(edit(clone(good)) as never, { diamondId: POLISHED, keys: keys() }));
      expect(f).toMatchObject({ code: 'format', message });
    });

    it('keys that are not a JWKS: format', async () => {
      expect(failure(await verifyCustody(good, { diamondId: POLISHED, keys: [] as never })).code).toBe('format');
    });
  });
});
