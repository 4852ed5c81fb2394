import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { CustodyAnswer } from '@dtp/domain';
import type { TestStack } from '@dtp/testing';
import { launchChromium } from '../../../tools/testing/chromium';
import { journey, Journey, passportStack, platformCall } from './passport-support';

/**
 * The browser's own function, for code that runs in the page (this project compiles without the DOM library: it
 * would change Node's Buffer types for every file).
 */
declare function getComputedStyle(el: unknown): { color: string; backgroundColor: string };

/** Polls `probe` (in the test, not the page: the page's CSP allows no eval) until `done` holds. */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The passport page in a real browser: Debian's chromium driven by playwright-core (installed once per run by the
 * Jest global setup when missing, tools/testing/chromium.js), against a real auth + platform + search stack.
 */
describe('the passport page in chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let j: Journey;
  const contexts: BrowserContext[] = [];

  const open = async (path: string): Promise<{ page: Page; status: number | undefined }> => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const res = await page.goto(`${stack.urls.search}${path}`);
    return { page, status: res?.status() };
  };

  const openWith = async (prepare: (context: BrowserContext) => Promise<void>): Promise<{ page: Page }> => {
    const context = await browser.newContext();
    contexts.push(context);
    await prepare(context);
    const page = await context.newPage();
    await page.goto(`${stack.urls.search}/passport/${j.share.share_id}`);
    return { page };
  };

  beforeAll(async () => {
    if (process.env.DTP_CHROMIUM_ERROR) throw new Error(process.env.DTP_CHROMIUM_ERROR);
    browser = await launchChromium();
    stack = await passportStack();
    j = await journey(stack);
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 120_000);

  it('shows the diamond, its journey, grading, lab status and QR code, with public names only', async () => {
    const { page, status } = await open(`/passport/${j.share.share_id}`);
    expect(status).toBe(200);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.locator('header').count()).toBe(1);
    expect(await page.locator('main').count()).toBe(1);
    expect(await page.locator('footer').count()).toBe(1);
    expect(await page.locator('h1').innerText()).toBe('Diamond passport');
    const text = await page.locator('main').innerText();
    for (const who of [j.producer, j.manufacturer, j.retailer]) expect(text).toContain(who.name);
    expect(text).toContain('Botswana');
    const steps = await page.locator('ol.journey li h3').allInnerTexts();
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
    expect(await page.locator('#s-grading ~ p strong').innerText()).toBe('GIA');
    // The PNG is shown (loaded through the link, no token); the SVG is not.
    const photos = page.locator('.photos img');
    expect(await photos.count()).toBe(1);
    expect(await photos.getAttribute('alt')).toBe('Photo 1 of the diamond (face up)');
    expect(
      await until(
        () =>
          photos.evaluate(
            (img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth,
          ),
        (w) => w !== 0 && w !== false,
      ),
    ).toBe(1);
    const qr = page.locator('.qr svg[role="img"]');
    expect(await qr.count()).toBe(1);
    expect(await qr.getAttribute('aria-label')).toBe("QR code of this page's link");
    const html = await page.content();
    for (const id of [j.polished.diamond_id, j.rough.diamond_id, j.producer.participant_id, j.retailer.participant_id]) expect(html.includes(id)).toBe(false);
  });

  const badgeOf = async (page: Page): Promise<{ state: string | null; text: string }> => {
    const badge = page.locator('#verified-badge');
    await until(
      () => badge.getAttribute('data-state'),
      (state) => state !== 'checking',
      20_000,
    );
    return { state: await badge.getAttribute('data-state'), text: await badge.innerText() };
  };

  it("turns the badge green: the browser verified the custody answer against the platform's published keys", async () => {
    const context = await browser.newContext({ javaScriptEnabled: true });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const keys: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/.well-known/custody-keys.json')) keys.push(r.url());
    });
    await page.goto(`${stack.urls.search}/passport/${j.share.share_id}`);
    expect(await page.locator('#verified-badge').getAttribute('role')).toBe('status');
    expect(await badgeOf(page)).toEqual({ state: 'verified', text: 'Verified' });
    expect(keys).toEqual([`${stack.urls.platform}/.well-known/custody-keys.json`]);
    expect(errors).toEqual([]);
    const colours = await page.locator('#verified-badge').evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
    expect(colours).toEqual(['rgb(255, 255, 255)', 'rgb(27, 110, 45)']);
  });

  it('turns the badge red for a tampered record served by a test double', async () => {
    const { page } = await openWith(async (context) => {
      await context.route(`**/passport/${j.share.share_id}/record`, async (route) => {
        const real = await route.fetch();
        const record = (await real.json()) as Record<string, unknown>;
        await route.fulfill({ response: real, json: { ...record, polished: { ...(record.polished as object), carats: '2.02' } } });
      });
    });
    const badge = await badgeOf(page);
    expect(badge.state).toBe('failed');
    expect(badge.text).toMatch(/^Verification failed: .*record/);
  });

  it('turns the badge red for a custody answer with an entry removed, or a forged checkpoint', async () => {
    const tamper = async (edit: (answer: CustodyAnswer) => CustodyAnswer) => {
      const { page } = await openWith(async (context) => {
        await context.route(`**/passport/${j.share.share_id}/custody`, async (route) => {
          const real = await route.fetch();
          await route.fulfill({ response: real, json: edit((await real.json()) as CustodyAnswer) });
        });
      });
      return badgeOf(page);
    };
    const removed = await tamper((a) => ({ ...a, entries: a.entries.filter((_e, i) => i !== 1) }));
    expect(removed.state).toBe('failed');
    expect(removed.text).toMatch(/^Verification failed: /);
    const forged = await tamper((a) => ({ ...a, checkpoint: { ...a.checkpoint, tree_size: a.checkpoint.tree_size + 1 } }));
    expect(forged.state).toBe('failed');
    expect(forged.text).toMatch(/^Verification failed: /);
    expect(forged.text).not.toBe(removed.text);
    const reordered = await tamper((a) => ({ ...a, entries: [a.entries[1], a.entries[0], ...a.entries.slice(2)] }));
    expect(reordered.state).toBe('failed');
    expect(reordered.text).toMatch(/^Verification failed: /);
  });

  it('remembers the checkpoint it verified, checks the log only grew on the next visit, and turns red for a rolled-back log', async () => {
    const passport = `${stack.urls.search}/passport/${j.share.share_id}`;
    const custodyNow = async () => (await (await fetch(`${passport}/custody`)).json()) as CustodyAnswer;
    const older = await custodyNow();
    // One browser (one local storage): the first visit verifies the log and remembers its checkpoint.
    const context = await browser.newContext();
    contexts.push(context);
    const proofs: string[] = [];
    context.on('request', (r) => {
      if (r.url().includes('/consistency?')) proofs.push(new URL(r.url()).search);
    });
    const first = await context.newPage();
    await first.goto(passport);
    expect(await badgeOf(first)).toEqual({ state: 'verified', text: 'Verified' });
    expect(proofs).toEqual([]);
    // The log grows (another diamond) and a checkpoint covers the new entry: the next visit asks for, and checks,
    // the consistency proof from the remembered size to the new one.
    await platformCall(stack, j.producer, 'POST', '/diamonds/rough/create', {
      box_id: 'BOX-GROW',
      participant_id: 'ERP-GROW',
      participant_timestamp: '2024-03-02T10:00:00Z',
      rough: { carats: 1.1 },
    });
    const newer = await until(custodyNow, (a) => a.checkpoint.tree_size > older.checkpoint.tree_size, 20_000);
    const second = await context.newPage();
    await second.goto(passport);
    expect(await badgeOf(second)).toEqual({ state: 'verified', text: 'Verified' });
    expect(proofs).toHaveLength(1);
    expect(proofs[0]).toMatch(new RegExp(`^\\?from=${older.checkpoint.tree_size}&to=\\d+$`));
    // The server now answers an older, genuinely signed, state of the log: it cannot prove it extends the
    // checkpoint this browser saw, so the badge turns red.
    await context.route(`**/passport/${j.share.share_id}/custody`, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(older) }),
    );
    const third = await context.newPage();
    await third.goto(passport);
    const badge = await badgeOf(third);
    expect(badge.state).toBe('failed');
    expect(badge.text).toMatch(/^Verification failed: the log was rolled back/);
    expect(newer.checkpoint.tree_size).toBeGreaterThan(older.checkpoint.tree_size);
  });

  it('waits for the next checkpoint when the log does not cover the diamond yet, then turns green', async () => {
    let custodyCalls = 0;
    const { page } = await openWith(async (context) => {
      await context.route(`**/passport/${j.share.share_id}/custody`, async (route) => {
        custodyCalls += 1;
        // The first answer is what search says before a checkpoint covers the diamond.
        if (custodyCalls === 1)
          await route.fulfill({
            status: 404,
            contentType: 'application/json',
            body: JSON.stringify({ message: 'the custody log has no checkpoint covering this diamond yet' }),
          });
        else await route.continue();
      });
    });
    await until(
      () => page.locator('#verified-badge').innerText(),
      (text) => text.includes('waiting for the custody log'),
      10_000,
    );
    expect(await badgeOf(page)).toEqual({ state: 'verified', text: 'Verified' });
    expect(custodyCalls).toBe(2);
  });

  it('has no serious or critical accessibility violations (axe-core)', async () => {
    const { page } = await open(`/passport/${j.share.share_id}`);
    const result = await new AxeBuilder({ page }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
    expect(bad).toEqual([]);
    expect(result.passes.map((p) => p.id)).toEqual(expect.arrayContaining(['html-has-lang', 'color-contrast', 'landmark-one-main']));
  });

  it('answers an accessible 404 page for an unknown or revoked link', async () => {
    const { page, status } = await open('/passport/AAAAAAAAAAAAAAAAAAAAAA');
    expect(status).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('Passport not found');
    const result = await new AxeBuilder({ page }).analyze();
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });
});
