import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestStack } from '@dtp/testing';
import { launchChromium } from '../../../tools/testing/chromium';
import { publicGet } from './passport-support';
import { originStack, shipmentJourney, ShipmentJourney } from './origin-support';

/** Polls `probe` (in the test: the page's CSP allows no eval) until `done` holds. */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pages of a PDF (its page objects: `/Type /Page`, not `/Pages`). */
const pdfPages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-z])/g) ?? []).length;

/**
 * The evidence of origin page (`/passport/{share_id}/evidence`) in Chromium against auth, platform and search: its
 * content, the credential verified in the browser (green; red for an altered credential), a screenshot, and print to
 * PDF on one A4 page.
 */
describe('the evidence page in chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let j: ShipmentJourney;
  const contexts: BrowserContext[] = [];
  const out = mkdtempSync(path.join(tmpdir(), 'dtp-evidence-'));

  const open = async (prepare?: (c: BrowserContext) => Promise<unknown>): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    if (prepare) await prepare(context);
    const page = await context.newPage();
    const res = await page.goto(`${stack.urls.search}/passport/${j.share.share_id}/evidence`);
    expect(res?.status()).toBe(200);
    return page;
  };
  const badgeOf = async (page: Page) => {
    const badge = page.locator('#credential-badge');
    await until(
      () => badge.getAttribute('data-state'),
      (s) => s !== 'checking',
    );
    return { state: await badge.getAttribute('data-state'), text: await badge.innerText(), detail: await page.locator('#credential-detail').innerText() };
  };

  beforeAll(async () => {
    if (process.env.DTP_CHROMIUM_ERROR) throw new Error(process.env.DTP_CHROMIUM_ERROR);
    browser = await launchChromium();
    stack = await originStack();
    j = await shipmentJourney(stack, { country: 'BW', reportNumber: '5566778899' });
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 120_000);

  it("shows the origin, the stone, the report number, the journey with dates and public names, and the link's QR code", async () => {
    const page = await open();
    expect(await page.locator('h1').innerText()).toBe('Diamond origin evidence');
    expect(await page.locator('#origin-countries').innerText()).toBe('Botswana (BW)');
    const main = await page.locator('main').innerText();
    expect(main).toContain('5566778899');
    expect(main).toContain('GIA');
    expect(main).toContain('1.21 ct');
    const rows = await page.locator('table tbody tr').allInnerTexts();
    // The two rough diamonds of the shipment, registered, shipped and received together: one row each, with a count.
    expect(rows[0]).toMatch(/^\d{4}-\d{2}-\d{2}\s+Mined and registered \(2 diamonds\)\s+Registered by .*Orapa Mining.*Origin: Orapa Mine/);
    expect(rows.slice(0, 3).map((r) => r.split('\t')[1])).toEqual(['Mined and registered (2 diamonds)', 'Shipped (2 diamonds)', 'Received (2 diamonds)']);
    expect(rows.some((r) => r.includes('Registered from a received shipment') && r.includes(j.manufacturer.name))).toBe(true);
    expect(rows.some((r) => r.includes('Shipped') && r.includes(j.producer.name) && r.includes(j.manufacturer.name))).toBe(true);
    expect(await page.locator('.qr svg[role="img"]').count()).toBe(1);
    const html = await page.content();
    for (const id of [j.producer.participant_id, j.manufacturer.participant_id]) expect(html.includes(id)).toBe(false);
  });

  it('verifies the origin credential in the browser (green), and a screenshot and a one-page A4 PDF show it', async () => {
    const page = await open();
    const badge = await badgeOf(page);
    expect(badge).toMatchObject({ state: 'verified', text: 'Origin credential verified' });
    expect(badge.detail).toMatch(/^Signed by the platform key \S+ on .*; custody entry [0-9a-f]{64} \(leaf \d+\) is in the signed log of \d+ entries/);
    const png = await page.screenshot({ fullPage: true });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    writeFileSync(path.join(out, 'evidence.png'), png);
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
    writeFileSync(path.join(out, 'evidence.pdf'), pdf);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdfPages(pdf)).toBe(1);
    // The page is A4 (595 x 842 points) as its print CSS asks.
    const box = /\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/.exec(pdf.toString('latin1'));
    expect(box).not.toBeNull();
    expect(Math.abs(Number(box![1]) - 595.28)).toBeLessThan(1);
    expect(Math.abs(Number(box![2]) - 841.89)).toBeLessThan(1);
  });

  it('turns red naming the member for a credential altered on the way (a test double in the network layer)', async () => {
    const good = (await publicGet(stack, `/passport/${j.share.share_id}/credential`)).text;
    const [h, p, s] = good.split('.');
    const vc = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { credentialSubject: { origin_countries: string[] } };
    vc.credentialSubject.origin_countries = ['CA'];
    const forged = `${h}.${Buffer.from(JSON.stringify(vc)).toString('base64url')}.${s}`;
    const page = await open((c) => c.route('**/credential', (route) => route.fulfill({ status: 200, contentType: 'application/vc+jwt', body: forged })));
    const badge = await badgeOf(page);
    expect(badge).toMatchObject({ state: 'failed', text: 'Verification failed (origin_countries)' });
    expect(badge.detail).toContain("origin_countries claims CA but the record's provenance says BW");
  });

  it('is linked from the passport page of the share link', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${stack.urls.search}/passport/${j.share.share_id}`);
    await page.getByRole('link', { name: /Evidence of origin/ }).click();
    await page.waitForURL(/\/evidence$/);
    expect(await page.locator('h1').innerText()).toBe('Diamond origin evidence');
  });

  it('has no serious or critical accessibility violations (axe-core), and an unknown link is the 404 page', async () => {
    const page = await open();
    await badgeOf(page);
    const result = await new AxeBuilder({ page }).analyze();
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    const res = await publicGet(stack, '/passport/AAAAAAAAAAAAAAAAAAAAAA/evidence', 'text/html');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Passport not found');
    const json = await publicGet(stack, '/passport/AAAAAAAAAAAAAAAAAAAAAA/evidence');
    expect(json.status).toBe(404);
    expect(JSON.parse(json.text)).toEqual({ message: 'passport not found' });
  });
});
