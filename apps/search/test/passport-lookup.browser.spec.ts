import AxeBuilder from '@axe-core/playwright';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DiamondV1, GradingDataView } from '@dtp/domain';
import { Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack } from '@dtp/testing';
import { launchChromium } from '../../../tools/testing/chromium';
import { journey, Journey, platformCall, publicGet } from './passport-support';
import { deleted, diamondRecord, eventually, upserted, withDb } from './support';

const LIMIT = 6;

/**
 * The passport's "look up by report number" (DESIGN.md "Looking a diamond up by what people hold"), over HTTP and in
 * Chromium, against a real auth + platform + search stack: a diamond whose holder shared it opens its passport (303);
 * anything else is the same 404 page, byte for byte; look-ups are limited per client address.
 */
describe('the passport look-up by report number', () => {
  let stack: TestStack;
  let j: Journey;
  let report: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let addresses = 0;
  /** A client address of its own (X-Forwarded-For, believed from the loopback proxy): its own look-up budget. */
  const address = () => `10.77.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;
  const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex').toUpperCase()}`;

  /** As a browser posts the form (Accept: text/html); `accept` other than that, as any other client. */
  const post = async (fields: Record<string, string>, from = address(), accept = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8') => {
    const res = await fetch(`${stack.urls.search}/passport/lookup`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from, accept },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  /** What a client sees of an answer, minus the Date. */
  const seen = (r: Awaited<ReturnType<typeof post>>) => ({
    status: r.status,
    type: r.headers.get('content-type'),
    csp: r.headers.get('content-security-policy'),
    cache: r.headers.get('cache-control'),
    location: r.headers.get('location'),
    length: r.headers.get('content-length'),
    body: r.text,
  });
  const grading = (members: Partial<GradingDataView>): GradingDataView => ({
    id: randomUUID(),
    is_active: true,
    is_selectable: true,
    source: 'user',
    ...members,
  });
  /** A graded diamond placed straight into search's read model (as platform.diamonds.v1 would), with no share link. */
  const unshared = async (members: Partial<GradingDataView>): Promise<DiamondV1> => {
    const d = diamondRecord({ current_stage: 'polished', lifecycle_state: 'polished', grading: [grading({ carats: '0.70', ...members })] });
    await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: d.diamond_id, value: upserted(d, 1) }]);
    await eventually(async () => {
      const rows = await withDb(
        stack.databases.search!,
        async (c) => (await c.query('SELECT 1 FROM search_diamonds WHERE diamond_id = $1', [d.diamond_id])).rows,
      );
      return rows.length ? true : undefined;
    }, 'the diamond in search');
    return d;
  };
  const shareRow = (diamondId: string, extra: { expires_at?: string; revoked_at?: string } = {}) =>
    withDb(stack.databases.search!, (c) =>
      c.query(`INSERT INTO search_shares (share_id, diamond_id, expires_at, revoked_at, revision) VALUES ($1, $2, $3, $4, 1)`, [
        randomBytes(16).toString('base64url').slice(0, 22),
        diamondId,
        extra.expires_at ?? null,
        extra.revoked_at ?? null,
      ]),
    );

  beforeAll(async () => {
    if (process.env.DTP_CHROMIUM_ERROR) throw new Error(process.env.DTP_CHROMIUM_ERROR);
    browser = await launchChromium();
    stack = await startTestStack({
      services: ['auth', 'platform', 'search'],
      env: {
        platform: { CUSTODY_CHECKPOINT_INTERVAL_MS: '200' },
        search: (urls) => ({ PLATFORM_PUBLIC_URL: urls.platform!, TRUSTED_PROXIES: '127.0.0.0/8,::1/128', PASSPORT_LOOKUP_PER_IP: String(LIMIT) }),
      },
    });
    j = await journey(stack);
    // The holder (the retailer) records the grading report's number and selects it.
    report = unique('GIA-R');
    const g = await platformCall<{ id: string }>(stack, j.retailer, 'POST', `/diamonds/${j.polished.diamond_id}/graded-measurements`, {
      carats: 1.01,
      shape: 'Round',
      colour: 'E',
      clarity: 'VS1',
      grading_lab: 'GIA',
      graded_date: '2024-05-01T00:00:00Z',
      grader_report_number: report,
    });
    await platformCall(stack, j.retailer, 'PATCH', `/diamonds/${j.polished.diamond_id}/${g.id}/select`);
    await eventually(async () => ((await post({ report_number: report })).status === 303 ? true : undefined), 'the shared diamond to be found', 30_000);
  }, 240_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 120_000);

  describe('over HTTP', () => {
    it('serves the form: public HTML, no script, posting to itself only', async () => {
      const res = await publicGet(stack, '/passport/lookup');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("form-action 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('script-src');
      expect(res.text).not.toContain('<script');
      expect(res.text).toContain('<form class="lookup" method="post" action="/passport/lookup">');
      expect(res.text).toContain('<label for="report-number">Grading report number</label>');
      expect(res.text).toContain('<option value="GIA">GIA</option>');
    });

    it("redirects (303) to the share's passport for the shared diamond's report number, in any case, with or without its lab", async () => {
      for (const fields of [
        { report_number: report },
        { report_number: `  ${report.toLowerCase()} ` },
        { report_number: report, grading_lab: 'GIA' },
        { report_number: report, grading_lab: 'gia' },
        { report_number: report, grading_lab: '' },
      ] as Record<string, string>[]) {
        const res = await post(fields);
        expect({ fields, status: res.status, location: res.headers.get('location') }).toEqual({
          fields,
          status: 303,
          location: `/passport/${j.share.share_id}`,
        });
      }
      // The link it leads to is the passport, and the QR code and link on it are unchanged (the share's own URL).
      const page = await publicGet(stack, `/passport/${j.share.share_id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<a href="${stack.urls.search}/passport/${j.share.share_id}">`);
      // Another lab: not found.
      expect((await post({ report_number: report, grading_lab: 'HRD' })).status).toBe(404);
    });

    it('answers the same 404 page, byte for byte, whether a diamond has that number or not (no existence oracle)', async () => {
      // A diamond with a report number and no link; one whose only link was revoked; one whose only link expired.
      const [bare, revoked, expired] = [unique('BARE'), unique('REVOKED'), unique('EXPIRED')];
      await unshared({ grader_report_number: bare, grading_lab: 'GIA' });
      const r = await unshared({ grader_report_number: revoked });
      await shareRow(r.diamond_id, { revoked_at: new Date().toISOString() });
      const e = await unshared({ grader_report_number: expired });
      await shareRow(e.diamond_id, { expires_at: new Date(Date.now() - 1000).toISOString() });
      // And a deleted diamond that was shared.
      const gone = unique('GONE');
      const g = await unshared({ grader_report_number: gone });
      await shareRow(g.diamond_id);
      expect((await post({ report_number: gone })).status).toBe(303);
      await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: g.diamond_id, value: deleted(g.diamond_id, 2) }]);
      await eventually(async () => ((await post({ report_number: gone })).status === 404 ? true : undefined), 'the deleted diamond to be gone');

      const unknown = seen(await post({ report_number: unique('NOSUCH') }));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toContain('<h1>Passport not found</h1>');
      expect(unknown.cache).toBe('no-store');
      for (const fields of [
        { report_number: bare },
        { report_number: bare, grading_lab: 'GIA' },
        { report_number: revoked },
        { report_number: expired },
        { report_number: gone },
        { report_number: unique('OTHER'), grading_lab: 'IGI' },
      ] as Record<string, string>[]) {
        expect({ fields, answer: seen(await post(fields)) }).toEqual({ fields, answer: unknown });
      }
      // The page never echoes what was typed.
      expect(unknown.body).not.toContain('NOSUCH');
    });

    it('lists the passports when several shared diamonds have the number (labs can share numbers)', async () => {
      const number = unique('SHARED');
      const a = await unshared({ grader_report_number: number, grading_lab: 'GIA' });
      const b = await unshared({ grader_report_number: number, grading_lab: 'IGI' });
      const c = await unshared({ grader_report_number: number, grading_lab: 'HRD' }); // not shared: not listed
      await shareRow(a.diamond_id);
      await shareRow(b.diamond_id);
      const res = await post({ report_number: number });
      expect(res.status).toBe(200);
      const links = [...res.text.matchAll(/<li><a href="\/passport\/([A-Za-z0-9_-]{22})">Passport \d \(([^<]+)\)<\/a><\/li>/g)].map((m) => m[2]);
      expect(links.sort()).toEqual(['graded by GIA, 0.70 ct', 'graded by IGI, 0.70 ct']);
      expect(res.text).not.toContain('HRD, 0.70');
      expect(res.text).not.toContain(c.diamond_id);
      // The lab picks one.
      expect((await post({ report_number: number, grading_lab: 'IGI' })).status).toBe(303);
    });

    it('422 for an unusable input (the same page whatever diamonds exist), never echoing it', async () => {
      for (const [fields, reason] of [
        [{}, 'Enter one report number.'],
        [{ report_number: '   ' }, 'Enter the report number.'],
        [{ report_number: 'x'.repeat(257) }, 'A report number has at most 256 characters.'],
        [{ report_number: 'R1', grading_lab: 'Nope' }, 'Choose a grading lab from the list, or any lab.'],
        [{ report_number: 'R\u00001' }, 'The report number contains characters that cannot be looked up.'],
      ] as [Record<string, string>, string][]) {
        const res = await post(fields);
        expect({ fields, status: res.status }).toEqual({ fields, status: 422 });
        expect(res.text).toContain(`<p class="error" id="report-error">${reason}</p>`);
        expect(res.text).toContain('aria-invalid="true"');
        expect(res.text).not.toContain('Nope');
      }
      // 256 characters are a look-up (and find nothing).
      expect((await post({ report_number: 'x'.repeat(256) })).status).toBe(404);
    });

    it('a client that does not ask for HTML gets the JSON errors: one 404 body whatever the reason, 422 naming the field, 429 rate_limited', async () => {
      const json = (fields: Record<string, string>, from = address()) => post(fields, from, 'application/json');
      const unknown = await json({ report_number: unique('NONE') });
      expect([unknown.status, unknown.headers.get('content-type'), JSON.parse(unknown.text)]).toEqual([
        404,
        'application/json; charset=utf-8',
        { message: 'no shared passport for that report number' },
      ]);
      // The diamond that exists but is not shared answers the same bytes.
      expect((await json({ report_number: report, grading_lab: 'HRD' })).text).toBe(unknown.text);
      const invalid = await json({ report_number: 'R1', grading_lab: 'Nope' });
      expect(invalid.status).toBe(422);
      expect((JSON.parse(invalid.text) as { detail: { loc: string[] }[] }).detail.map((d) => d.loc)).toEqual([['body', 'grading_lab']]);
      const from = address();
      for (let i = 0; i < LIMIT; i++) await json({ report_number: unique('SPAM') }, from);
      const limited = await json({ report_number: report }, from);
      expect([limited.status, (JSON.parse(limited.text) as { reason: string }).reason, Number(limited.headers.get('retry-after')) >= 1]).toEqual([
        429,
        'rate_limited',
        true,
      ]);
    });

    it('limits look-ups per client address: 429 with Retry-After past the limit, other addresses unaffected', async () => {
      const from = address();
      for (let i = 0; i < LIMIT; i++) expect((await post({ report_number: unique('SPAM') }, from)).status).toBe(404);
      const limited = await post({ report_number: report }, from);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(limited.text).toContain('Too many look-ups came from your address');
      // Even the shared diamond's number is refused from that address; another address still finds it.
      expect((await post({ report_number: report }, address())).status).toBe(303);
    });

    it("finds only by the active grading: deselected, the shared diamond's number no longer finds it (and /v1/lookup agrees)", async () => {
      const reader = await participantWithToken(stack, 'non_participant', 'search');
      const v1 = async (query: string) => {
        const res = await fetch(`${stack.urls.search}/v1/lookup?${query}`, { headers: { authorization: reader.token } });
        return ((await res.json()) as { results: DiamondV1[] }).results.map((d) => d.diamond_id);
      };
      expect(await v1(`grader_report_number=${report.toLowerCase()}&grading_lab=GIA`)).toEqual([j.polished.diamond_id]);
      const list = await platformCall<{ results: GradingDataView[] }>(stack, j.retailer, 'GET', `/diamonds/${j.polished.diamond_id}/graded-measurements`);
      const active = list.results.find((g) => g.is_active)!;
      expect(active.grader_report_number).toBe(report);
      await platformCall(stack, j.retailer, 'PATCH', `/diamonds/${j.polished.diamond_id}/${active.id}/deselect`);
      await eventually(async () => ((await v1(`grader_report_number=${report}`)).length === 0 ? true : undefined), 'the deselected grading to stop finding it');
      expect((await post({ report_number: report })).status).toBe(404);
      // Selected again: found again.
      await platformCall(stack, j.retailer, 'PATCH', `/diamonds/${j.polished.diamond_id}/${active.id}/select`);
      await eventually(async () => ((await post({ report_number: report })).status === 303 ? true : undefined), 'the selected grading to find it again');
    });
  });

  describe('in chromium', () => {
    const open = async (path: string): Promise<{ page: Page; status: number | undefined; violations: string[] }> => {
      // Each context its own client address (through the loopback proxy search believes).
      const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address() } });
      contexts.push(context);
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      const res = await page.goto(`${stack.urls.search}${path}`);
      return { page, status: res?.status(), violations };
    };
    const axe = async (page: Page) => {
      const result = await new AxeBuilder({ page }).analyze();
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
    };

    it('the form opens the shared passport: typed, submitted, redirected, with no CSP violation', async () => {
      const { page, status, violations } = await open('/passport/lookup');
      expect(status).toBe(200);
      expect(await page.locator('h1').innerText()).toBe('Find a diamond passport');
      await page.getByLabel('Grading report number').fill(report.toLowerCase());
      await page.getByLabel('Grading lab').selectOption('GIA');
      await Promise.all([page.waitForURL(`**/passport/${j.share.share_id}`), page.getByRole('button', { name: 'Look up' }).click()]);
      expect(await page.locator('h1').innerText()).toBe('Diamond passport');
      expect(await page.locator('.qr svg[role="img"]').count()).toBe(1);
      expect(violations).toEqual([]);
    });

    it('an unknown number shows the 404 page with the form again; the form, the 404 and the 422 pages pass axe-core', async () => {
      const { page, violations } = await open('/passport/lookup');
      expect(await axe(page)).toEqual([]);
      await page.getByLabel('Grading report number').fill(unique('NOSUCH'));
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Look up' }).click(),
      ]);
      expect(response.status()).toBe(404);
      await page.waitForLoadState();
      expect(await page.locator('h1').innerText()).toBe('Passport not found');
      expect(await page.getByLabel('Grading report number').count()).toBe(1);
      expect(await axe(page)).toEqual([]);
      // 422: a value the browser's own checks let through (spaces only), with its reason tied to the field.
      await page.getByLabel('Grading report number').fill('   ');
      const [invalid] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Look up' }).click(),
      ]);
      expect(invalid.status()).toBe(422);
      await page.waitForLoadState();
      expect(await page.locator('#report-error').innerText()).toBe('Enter the report number.');
      expect(await page.getByLabel('Grading report number').getAttribute('aria-invalid')).toBe('true');
      expect(await axe(page)).toEqual([]);
      expect(violations).toEqual([]);
    });
  });
});
