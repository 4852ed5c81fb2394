import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestStack, TestStack } from '@dtp/testing';
import { launchChromium } from '../../../tools/testing/chromium';
import { journey, Journey } from './passport-support';

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

  beforeAll(async () => {
    if (process.env.DTP_CHROMIUM_ERROR) throw new Error(process.env.DTP_CHROMIUM_ERROR);
    browser = await launchChromium();
    stack = await startTestStack({ services: ['auth', 'platform', 'search'], env: { search: (urls) => ({ PLATFORM_PUBLIC_BASE_URL: urls.platform! }) } });
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
    expect(text).toContain(j.producer.name);
    expect(text).toContain('Botswana');
    const steps = await page.locator('ol.journey li h3').allInnerTexts();
    expect(steps[0]).toBe('Mined and registered');
    expect(steps).toContain('Cut and polished');
    expect(steps).toContain('Graded');
    expect(await page.locator('#s-grading ~ p strong').innerText()).toBe('GIA');
    expect(text).toContain('No public photo');
    const qr = page.locator('.qr svg[role="img"]');
    expect(await qr.count()).toBe(1);
    expect(await qr.getAttribute('aria-label')).toBe("QR code of this page's link");
    const html = await page.content();
    for (const id of [j.polished.diamond_id, j.rough.diamond_id, j.producer.participant_id, j.retailer.participant_id]) expect(html.includes(id)).toBe(false);
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
