import QRCode from 'qrcode';
import type { TestStack } from '@dtp/testing';
import type { CustodyAnswer, DiamondV1 } from '@dtp/domain';
import { eventually, withDb } from './support';
import { journey, Journey, passportStack, PNG_1X1, platformCall, publicGet } from './passport-support';

/** The passport over HTTP (the page in a real browser: passport.browser.spec.ts). */
describe('GET /passport/{share_id}', () => {
  let stack: TestStack;
  let j: Journey;

  beforeAll(async () => {
    stack = await passportStack();
    j = await journey(stack);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it('is public HTML with landmarks, names instead of ids, the grading, the GIS status, a QR code and a CSP that allows its script', async () => {
    const res = await publicGet(stack, `/passport/${j.share.share_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain(`connect-src 'self' ${new URL(stack.urls.platform!).origin}`);
    const html = res.text;
    expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    for (const tag of ['<header>', '<main>', '<footer>', '<h1>', '<h2 id="s-journey">']) expect(html).toContain(tag);
    // Public names of every participant on the journey, and the mine and country of origin.
    for (const who of [j.producer, j.manufacturer, j.retailer]) expect(html).toContain(who.name);
    expect(html).toContain('Botswana');
    const steps = [...html.matchAll(/<li><h3>([^<]+)<\/h3>/g)].map((m) => m[1]);
    expect(steps).toEqual([
      'Mined and registered',
      'Shipped',
      'Received',
      'Cut and polished',
      'Graded',
      'Document added',
      'Document added',
      'Shipped',
      'Received',
    ]);
    expect(html).toContain(`Sent by ${j.manufacturer.name} (manufacturer) to ${j.retailer.name} (retailer).`);
    expect(html).toContain('Graded by <strong>GIA</strong>');
    expect(html).toContain('Not checked.');
    expect(html).toMatch(/<svg role="img" aria-label="QR code of this page's link"[^>]*viewBox/);
    expect(html).toContain('Checking...');
    expect(html).toContain(`data-keys-url="${stack.urls.platform}/.well-known/custody-keys.json"`);
    // No ids: no diamond's, no participant's, no ERP/box ids.
    for (const id of [
      j.polished.diamond_id,
      j.rough.diamond_id,
      j.polished.id,
      j.producer.participant_id,
      j.manufacturer.participant_id,
      j.retailer.participant_id,
      j.polished.participant_id!,
      j.rough.participant_id!,
      'BOX-PASSPORT',
      j.producer.client_id,
    ]) {
      expect({ id, found: html.includes(id) }).toEqual({ id, found: false });
    }
    // The QR code encodes the link (the same modules as the link's own QR code), and the link is shown as text too.
    const link = `${stack.urls.search}/passport/${j.share.share_id}`;
    const modules = (svg: string) => /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1];
    expect(modules(html)).toBe(modules(await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })));
    expect(modules(html)).not.toBe(modules(await QRCode.toString(`${link}x`, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })));
    expect(html).toContain(`<a href="${link}">${link}</a>`);
  });

  it('serves the record, the custody answer and the verify bundle as public JSON and script', async () => {
    const record = await publicGet(stack, `/passport/${j.share.share_id}/record`);
    expect(record.status).toBe(200);
    expect(JSON.parse(record.text) as DiamondV1).toEqual(j.polished);
    const custody = await publicGet(stack, `/passport/${j.share.share_id}/custody`);
    expect(custody.status).toBe(200);
    const answer = JSON.parse(custody.text) as CustodyAnswer;
    // The polished diamond's chain reaches back to the rough one's registration.
    expect(answer.entries[0].entry).toMatchObject({ diamond_id: j.rough.diamond_id, action: 'registered', prev_entry_hash: null });
    expect(answer.entries.at(-1)!.entry).toMatchObject({ diamond_id: j.polished.diamond_id, version_id: j.polished.version_id });
    expect(answer.entries.map((e) => e.entry.action)).toEqual(expect.arrayContaining(['shipped', 'accepted', 'polished', 'grading_selected']));
    const photo = await fetch(`${stack.urls.search}/passport/${j.share.share_id}/photos/1`);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await photo.arrayBuffer()).equals(PNG_1X1)).toBe(true);
    for (const n of ['2', '0', 'x'])
      expect({ n, status: (await publicGet(stack, `/passport/${j.share.share_id}/photos/${n}`)).status }).toEqual({ n, status: 404 });
    // Consistency proofs for a live link, with the token-free route's own checks.
    const size = answer.checkpoint.tree_size;
    const consistency = await publicGet(stack, `/passport/${j.share.share_id}/consistency?from=1&to=${size}`);
    expect(consistency.status).toBe(200);
    expect(JSON.parse(consistency.text)).toMatchObject({ from: 1, to: size });
    const tooFar = await publicGet(stack, `/passport/${j.share.share_id}/consistency?from=1&to=${size + 1000}`);
    expect(tooFar.status).toBe(422);
    expect(tooFar.text).toContain('to');
    expect((await publicGet(stack, `/passport/AAAAAAAAAAAAAAAAAAAAAA/consistency?from=1&to=${size}`)).status).toBe(404);
    const bundle = await publicGet(stack, '/passport/assets/verify.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.text).toContain('DtpVerify');
    // The icon the page links to, allowed by the page's policy.
    const page = await publicGet(stack, `/passport/${j.share.share_id}`, 'text/html');
    expect(page.text).toContain('<link rel="icon" type="image/svg+xml" href="/passport/assets/favicon.svg">');
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self'");
    const icon = await publicGet(stack, '/passport/assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('answers 404 for unknown, out-of-format, expired and revoked links (a page for browsers, JSON otherwise)', async () => {
    for (const path of ['/passport/AAAAAAAAAAAAAAAAAAAAAA', '/passport/nope', '/passport/AAAAAAAAAAAAAAAAAAAAAA/record']) {
      const res = await publicGet(stack, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    // A browser gets the 404 page; any other client the API's JSON.
    const unknown = await publicGet(stack, '/passport/AAAAAAAAAAAAAAAAAAAAAA', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(unknown.text).toContain('<h1>Passport not found</h1>');
    expect(unknown.text).toContain('href="/passport/assets/favicon.svg"');
    expect(unknown.headers.get('content-security-policy')).toContain("img-src 'self'");
    expect(unknown.headers.get('content-security-policy')).toContain("default-src 'none'");
    const api = await publicGet(stack, '/passport/AAAAAAAAAAAAAAAAAAAAAA', 'application/json');
    expect(api.status).toBe(404);
    expect(JSON.parse(api.text)).toEqual({ message: 'passport not found' });

    // Expired: a link whose time has passed (moved into the past in search's copy).
    const expiring = await platformCall<{ share_id: string }>(stack, j.retailer, 'POST', `/diamonds/${j.polished.diamond_id}/share`, {
      expires_at: '2099-01-01T00:00:00Z',
    });
    await eventually(async () => ((await publicGet(stack, `/passport/${expiring.share_id}`)).status === 200 ? true : undefined), 'the expiring link');
    await withDb(stack.databases.search!, (c) =>
      c.query(`UPDATE search_shares SET expires_at = now() - interval '1 second' WHERE share_id = $1`, [expiring.share_id]),
    );
    expect((await publicGet(stack, `/passport/${expiring.share_id}`)).status).toBe(404);

    // Revoked by the holder: the page and its JSON are gone.
    const other = await platformCall<{ share_id: string }>(stack, j.retailer, 'POST', `/diamonds/${j.polished.diamond_id}/share`);
    await eventually(async () => ((await publicGet(stack, `/passport/${other.share_id}`)).status === 200 ? true : undefined), 'the second link');
    await platformCall(stack, j.retailer, 'DELETE', `/diamonds/${j.polished.diamond_id}/share/${other.share_id}`);
    const gone = await eventually(async () => {
      const res = await publicGet(stack, `/passport/${other.share_id}`, 'text/html');
      return res.status === 404 ? res : undefined;
    }, 'the revoked link to answer 404');
    expect(gone.text).toContain('revoked');
    expect((await publicGet(stack, `/passport/${other.share_id}/record`)).status).toBe(404);
    // The first link still works.
    expect((await publicGet(stack, `/passport/${j.share.share_id}`)).status).toBe(200);
  });

  it("keeps participants' public names from participant.onboarded", async () => {
    const rows = await withDb(
      stack.databases.search!,
      async (c) =>
        (
          await c.query(`SELECT name, role, provenance_name, provenance_country FROM search_participants WHERE participant_id = $1`, [
            j.producer.participant_id,
          ])
        ).rows,
    );
    expect(rows).toEqual([{ name: j.producer.name, role: 'producer', provenance_name: expect.stringMatching(/^Karowe Mine/), provenance_country: 'BW' }]);
  });
});
