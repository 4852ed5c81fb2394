import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import type { PassportView } from './passport.view';

/** HTML text escaping (element content and double-quoted attributes). */
export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Colours chosen for WCAG AA contrast (4.5:1 or better) on their backgrounds. Exported for the look-up pages (passport-lookup-page.ts). */
export const STYLE = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
body{margin:0;line-height:1.5}
header,main,footer{max-width:46rem;margin:0 auto;padding:1rem 1.25rem}
header{border-bottom:1px solid #d0d0d0}
header p{margin:0;color:#444}
h1{font-size:1.75rem;margin:.25rem 0}
h2{font-size:1.25rem;margin:1.75rem 0 .5rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
ol.journey{list-style:none;padding:0;margin:0;border-left:3px solid #5a4a9c}
ol.journey li{position:relative;padding:0 0 1rem 1.25rem}
ol.journey li::before{content:"";position:absolute;left:-.5rem;top:.4rem;width:.75rem;height:.75rem;border-radius:50%;background:#5a4a9c}
ol.journey h3{font-size:1rem;margin:0}
ol.journey time{color:#444;font-size:.9rem}
ol.journey p{margin:.1rem 0 0}
.photos{display:flex;flex-wrap:wrap;gap:.75rem}
.photos img{max-width:14rem;height:auto;border:1px solid #d0d0d0}
.placeholder{padding:1rem;border:1px dashed #767676;color:#444;background:#f6f6f6}
.badge{display:inline-block;padding:.35rem .75rem;border-radius:1rem;font-weight:700;border:2px solid #555;color:#1a1a1a;background:#f0f0f0}
.badge.ok{border-color:#1b6e2d;color:#fff;background:#1b6e2d}
.badge.fail{border-color:#a4161a;color:#fff;background:#a4161a}
.qr svg{width:10rem;height:10rem}
footer{border-top:1px solid #d0d0d0;color:#444;font-size:.9rem}
a{color:#3b2f80}
`.trim();

/**
 * The badge: loads the record and has @dtp/verify (the bundle at assets/verify.js, loaded just before) check the
 * custody answer against the platform's published keys. Everything it needs is relative to the page's address or
 * in the badge's data attribute; the page itself carries no ids.
 */
/** Exported for the test that parses it. */
export const SCRIPT = `
(function () {
  var badge = document.getElementById('verified-badge');
  if (!badge) return;
  function show(ok, text) { badge.textContent = text; badge.className = 'badge ' + (ok ? 'ok' : 'fail'); badge.setAttribute('data-state', ok ? 'verified' : 'failed'); }
  var base = window.location.pathname.replace(/\\/+$/, '');
  var RETRIES = 5, RETRY_MS = 2000, STORE = 'dtp-custody-checkpoints';
  if (!window.DtpVerify) { show(false, 'Verification failed: the verifier could not be loaded'); return; }
  // The last checkpoint this browser verified, per log: the next visit must prove the log only grew since.
  function remembered() { try { return JSON.parse(window.localStorage.getItem(STORE) || '{}') || {}; } catch (e) { return {}; } }
  function remember(checkpoint) {
    try { var all = remembered(); all[checkpoint.log_id] = checkpoint; window.localStorage.setItem(STORE, JSON.stringify(all)); } catch (e) { /* storage off: nothing remembered */ }
  }
  // The diamond is the one the record names; the custody answer must prove that record's chain. A change made
  // seconds ago reaches the log with the next checkpoint ("pending"): asked again a few times before failing.
  function run(attempt) {
    window.DtpVerify.fetchAndVerify({
      fetch: window.fetch.bind(window),
      custodyUrl: base + '/custody',
      recordUrl: base + '/record',
      keysUrl: badge.getAttribute('data-keys-url'),
      known: function (logId) { return remembered()[logId] || null; },
      consistencyUrl: function (from, to) { return base + '/consistency?from=' + from + '&to=' + to; }
    }).then(function (result) {
      if (result && result.ok) {
        if (result.answer && result.answer.checkpoint) remember(result.answer.checkpoint);
        return show(true, 'Verified');
      }
      var failure = (result && result.failure) || { message: 'no result' };
      if (failure.pending && attempt < RETRIES) {
        badge.textContent = "Checking... (waiting for the custody log's next checkpoint)";
        return setTimeout(function () { run(attempt + 1); }, RETRY_MS);
      }
      show(false, 'Verification failed: ' + failure.message);
    }).catch(function (err) {
      show(false, 'Verification failed: ' + (err && err.message ? err.message : String(err)));
    });
  }
  run(1);
})();
`.trim();

/** The passport's icon: a cut diamond's outline in the page's ink, served as `assets/favicon.svg`. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M9 4h14l7 9-14 16L2 13z" fill="#1f3a5f"/><path d="M2 13h28M9 4l4 9 3 16 3-16 4-9M13 13l3-9 3 9" fill="none" stroke="#fff" stroke-width="1.2" stroke-linejoin="round"/></svg>
`;

const sha256b64 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');
const STYLE_HASH = `'sha256-${sha256b64(STYLE)}'`;
const SCRIPT_HASH = `'sha256-${sha256b64(SCRIPT)}'`;

/** The page's Content-Security-Policy: its own scripts (the bundle and the hashed inline badge), fetches to itself and to the platform's keys. */
export function passportCsp(keysOrigin: string | null): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${SCRIPT_HASH}`,
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `connect-src 'self'${keysOrigin ? ` ${keysOrigin}` : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The error pages' policy: no script at all. */
export const NOT_FOUND_CSP = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** What a page puts in the frame: its title, styles (each its own `<style>` element), body, footer element and scripts. */
export interface PageParts {
  title: string;
  styles: readonly string[];
  body: string;
  footer: string;
  /** Script elements, each ending in a newline; none by default. */
  scripts?: string;
}

/** The frame of every HTML page this service serves (the passport, its 404, the look-up pages, the evidence page). */
export function pageFrame({ title, styles, body, footer, scripts = '' }: PageParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<link rel="icon" type="image/svg+xml" href="/passport/assets/favicon.svg">
${styles.map((style) => `<style>${style}</style>\n`).join('')}</head>
<body>
${body}
${footer}
${scripts}</body>
</html>
`;
}

const FOOTER =
  "<footer><p>Diamond traceability platform: an open, tamper-evident record of each diamond's journey. Anyone can check this page's data against the platform's published keys.</p></footer>";

function facts(list: [string, string][]): string {
  return `<dl class="facts">${list.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function dateText(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toLocaleDateString('en-GB', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

/** The QR code of the link, as inline SVG with a text alternative. */
export async function qrSvg(url: string): Promise<string> {
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return svg.replace('<svg ', '<svg role="img" aria-label="QR code of this page\'s link" focusable="false" ');
}

export async function renderPassport(view: PassportView, keysUrl: string): Promise<string> {
  const photos =
    view.photos.length > 0
      ? `<div class="photos">${view.photos.map((p) => `<img src="${esc(p.src)}" alt="${esc(p.alt)}" loading="lazy">`).join('')}</div>`
      : `<p class="placeholder">${view.hiddenPhotos > 0 ? "No public photo: this diamond's image files are in formats the page does not show." : 'No photo of this diamond has been published.'}</p>`;
  const journey = view.journey.length
    ? `<ol class="journey">${view.journey
        .map((s) => `<li><h3>${esc(s.title)}</h3><time datetime="${esc(s.at)}">${esc(dateText(s.at))}</time>${s.detail ? `<p>${esc(s.detail)}</p>` : ''}</li>`)
        .join(
          '',
        )}</ol>${view.journeyFromLog ? '' : "<p>The custody log has not published this diamond's latest steps yet; the journey above is taken from its records.</p>"}`
    : '<p>No steps recorded yet.</p>';
  const grading = view.grading
    ? `${view.grading.lab ? `<p>Graded by <strong>${esc(view.grading.lab)}</strong>.</p>` : ''}${facts(view.grading.facts)}`
    : '<p>No grading is shown for this diamond.</p>';
  const body = `<header>
<p>Diamond traceability platform</p>
<h1>${esc(view.title)}</h1>
</header>
<main>
<section aria-labelledby="s-diamond"><h2 id="s-diamond">The diamond</h2>
${photos}
${facts(view.facts.concat(view.origin ? [['Origin', view.origin]] : []))}
</section>
<section aria-labelledby="s-verify"><h2 id="s-verify">Verification</h2>
<p><span id="verified-badge" class="badge" role="status" aria-live="polite" data-state="checking" data-keys-url="${esc(keysUrl)}">Checking...</span></p>
<noscript><p>The verified badge is computed in your browser and needs JavaScript; everything else on this page works without it.</p></noscript>
<p>The badge checks, in your browser, that this diamond's journey is in the platform's tamper-evident custody log (hashes, links and Merkle inclusion proofs), that the log's head is signed by the platform's published key, and that the record matches its latest log entry.</p>
</section>
<section aria-labelledby="s-journey"><h2 id="s-journey">Journey</h2>
${journey}
</section>
<section aria-labelledby="s-grading"><h2 id="s-grading">Grading</h2>
${grading}
</section>
<section aria-labelledby="s-gis"><h2 id="s-gis">Lab verification</h2>
<p><strong>${esc(view.gis.status)}.</strong> ${esc(view.gis.text)}</p>
</section>
<section aria-labelledby="s-share"><h2 id="s-share">Share this passport</h2>
<div class="qr">${await qrSvg(view.shareUrl)}</div>
<p><a href="${esc(view.shareUrl)}">${esc(view.shareUrl)}</a></p>
<p><a href="${esc(`${view.shareUrl}/evidence`)}">Evidence of origin (printable, with the origin credential)</a></p>
</section>
</main>`;
  return pageFrame({
    title: view.title,
    styles: [STYLE],
    body,
    footer: FOOTER,
    scripts: `<script src="assets/verify.js"></script>\n<script>${SCRIPT}</script>\n`,
  });
}

export function renderNotFound(): string {
  return pageFrame({
    title: 'Passport not found',
    styles: [STYLE],
    body: `<header><p>Diamond traceability platform</p><h1>Passport not found</h1></header>
<main><p>This passport link is unknown, has expired or was revoked by the diamond's holder.</p><p>Ask the holder for a new link.</p><p>Have the diamond's grading report? <a href="/passport/lookup">Look up its passport by report number</a>.</p></main>`,
    footer: FOOTER,
  });
}
