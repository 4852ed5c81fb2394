import { createHash } from 'node:crypto';
import { esc, pageFrame, qrSvg } from '../passport/passport-page';
import type { JourneyStep } from '../passport/passport.view';

/** What the evidence page shows (no ids but the diamond's public URL, which the credential names anyway). */
export interface EvidenceView {
  /** ISO 3166-1 alpha-2 codes with their English names; empty while the origin is pending. */
  origins: { code: string; name: string }[];
  originStatus: 'confirmed' | 'pending' | 'unknown';
  stone: [string, string][];
  reportNumber: string | null;
  gradingLab: string | null;
  journey: JourneyStep[];
  shareUrl: string;
  issuer: string;
}

/** A4, one page: compact type, the journey as a table, nothing interactive printed. */
export const EVIDENCE_STYLE = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
body{margin:0 auto;max-width:52rem;padding:1rem 1.25rem;line-height:1.4;font-size:.95rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.05rem;margin:1rem 0 .35rem;border-bottom:1px solid #d0d0d0}
header p{margin:0;color:#444}
.top{display:flex;gap:1.25rem;align-items:flex-start;justify-content:space-between}
.qr svg{width:8rem;height:8rem}
.qr p{margin:0;font-size:.75rem;color:#444;max-width:8rem;word-break:break-all}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{text-align:left;vertical-align:top;padding:.2rem .4rem;border-bottom:1px solid #e0e0e0}
th{font-weight:600}
td:first-child{white-space:nowrap}
.badge{display:inline-block;padding:.3rem .7rem;border-radius:1rem;font-weight:700;border:2px solid #555;color:#1a1a1a;background:#f0f0f0}
.badge.ok{border-color:#1b6e2d;color:#fff;background:#1b6e2d}
.badge.fail{border-color:#a4161a;color:#fff;background:#a4161a}
#credential-detail{font-size:.8rem;color:#333;word-break:break-all}
.origin{font-size:1.2rem;font-weight:700}
footer{margin-top:1rem;border-top:1px solid #d0d0d0;color:#444;font-size:.75rem}
a{color:#3b2f80}
@page{size:A4;margin:12mm}
@media print{
body{max-width:none;padding:0;font-size:8.5pt;line-height:1.3}
dl.facts{grid-template-columns:max-content 1fr max-content 1fr}
p{margin:.25rem 0}
h1{font-size:15pt}
h2{font-size:10.5pt;margin:.6rem 0 .2rem}
table{font-size:8pt}
.qr svg{width:30mm;height:30mm}
.noprint{display:none}
.badge{-webkit-print-color-adjust:exact;print-color-adjust:exact}
section,tr{break-inside:avoid}
}
`.trim();

/**
 * Fetches the link's credential and has @dtp/verify (assets/verify.js) check it against the platform's published keys
 * in the browser; the result (and the entry and checkpoint it is tied to) is written into the page before printing.
 */
export const EVIDENCE_SCRIPT = `
(function () {
  var badge = document.getElementById('credential-badge');
  var detail = document.getElementById('credential-detail');
  if (!badge) return;
  function show(ok, text, more) {
    badge.textContent = text; badge.className = 'badge ' + (ok ? 'ok' : 'fail'); badge.setAttribute('data-state', ok ? 'verified' : 'failed');
    if (detail) detail.textContent = more || '';
  }
  if (!window.DtpVerify || !window.DtpVerify.verifyCredential) { show(false, 'Verification failed: the verifier could not be loaded'); return; }
  var base = window.location.pathname.replace(/\\/evidence\\/?$/, '');
  var RETRIES = 5, RETRY_MS = 2000;
  function text(res) { return res.text().then(function (t) { return { status: res.status, text: t }; }); }
  function run(attempt) {
    Promise.all([
      window.fetch(base + '/credential', { headers: { accept: 'application/vc+jwt' } }).then(text),
      window.fetch(badge.getAttribute('data-keys-url'), { headers: { accept: 'application/json' } }).then(function (r) { return r.json(); })
    ]).then(function (got) {
      var credential = got[0], keys = got[1];
      if ((credential.status === 409 || credential.status === 404) && attempt < RETRIES) {
        badge.textContent = "Checking... (waiting for the custody log's next checkpoint)";
        return setTimeout(function () { run(attempt + 1); }, RETRY_MS);
      }
      if (credential.status !== 200) return show(false, 'Verification failed: the credential could not be fetched (HTTP ' + credential.status + ')');
      return window.DtpVerify.verifyCredential(credential.text.trim(), { keys: keys }).then(function (result) {
        if (result && result.ok) {
          var c = result.credential.credentialSubject.custody;
          return show(true, 'Origin credential verified',
            'Signed by the platform key ' + result.kid + ' on ' + result.credential.validFrom + '; custody entry ' + c.entry_hash +
            ' (leaf ' + c.leaf_index + ') is in the signed log of ' + c.checkpoint.tree_size + ' entries of ' + c.checkpoint.timestamp + '.');
        }
        var f = (result && result.failure) || { code: 'unknown', message: 'no result' };
        show(false, 'Verification failed (' + f.code + ')', f.message);
      });
    }).catch(function (err) {
      show(false, 'Verification failed', err && err.message ? err.message : String(err));
    });
  }
  run(1);
})();
`.trim();

const sha256b64 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** Its own script (the bundle and the hashed inline check), its hashed style, fetches to search and the platform's keys. */
export function evidenceCsp(keysOrigin: string | null): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${sha256b64(EVIDENCE_SCRIPT)}'`,
    `style-src 'sha256-${sha256b64(EVIDENCE_STYLE)}'`,
    "img-src 'self' data:",
    `connect-src 'self'${keysOrigin ? ` ${keysOrigin}` : ''}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Consecutive steps that read the same (the rough diamonds of one shipment registered, shipped, received together) as one row with a count. */
export function mergedSteps(steps: JourneyStep[]): (JourneyStep & { count: number })[] {
  const out: (JourneyStep & { count: number })[] = [];
  for (const s of steps) {
    const last = out[out.length - 1];
    if (last && last.title === s.title && last.detail === s.detail && last.at.slice(0, 10) === s.at.slice(0, 10)) last.count += 1;
    else out.push({ ...s, count: 1 });
  }
  return out;
}

function dateText(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 10);
}

/** The printable evidence of origin (one A4 page) behind a share link. */
export async function renderEvidence(view: EvidenceView, keysUrl: string, now: Date = new Date()): Promise<string> {
  const origin =
    view.originStatus === 'confirmed'
      ? `<p class="origin" id="origin-countries">${view.origins.map((o) => `${esc(o.name)} (${esc(o.code)})`).join(', ')}</p>`
      : view.originStatus === 'pending'
        ? `<p class="origin" id="origin-countries">Origin not confirmed yet</p><p>The platform has not confirmed the provenance of every rough diamond this stone comes from: no country of origin is claimed.</p>`
        : `<p class="origin" id="origin-countries">Not available yet</p><p>The custody log has not caught up with this diamond's latest change; reload in a few seconds.</p>`;
  const journey = view.journey.length
    ? `<table><thead><tr><th scope="col">Date</th><th scope="col">Step</th><th scope="col">By</th></tr></thead><tbody>${mergedSteps(view.journey)
        .map(
          (s) =>
            `<tr><td><time datetime="${esc(s.at)}">${esc(dateText(s.at))}</time></td><td>${esc(s.title)}${s.count > 1 ? ` (${s.count} diamonds)` : ''}</td><td>${esc(s.detail ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No steps recorded yet.</p>';
  const facts = (list: [string, string][]) => `<dl class="facts">${list.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
  const grading: [string, string][] = view.reportNumber
    ? [['Grading report', view.reportNumber], ...(view.gradingLab ? ([['Grading lab', view.gradingLab]] as [string, string][]) : [])]
    : [['Grading report', 'none']];
  const body = `<header class="top">
<div>
<p>Diamond traceability platform &middot; evidence of origin</p>
<h1>Diamond origin evidence</h1>
<p>Generated ${esc(now.toISOString().slice(0, 10))} from the platform's signed custody log, for a due-diligence statement on origin.</p>
</div>
<div class="qr">${await qrSvg(view.shareUrl)}<p>${esc(view.shareUrl)}</p></div>
</header>
<main>
<section aria-labelledby="e-origin"><h2 id="e-origin">Origin</h2>
${origin}
</section>
<section aria-labelledby="e-stone"><h2 id="e-stone">The diamond</h2>
${facts(view.stone.concat(grading))}
</section>
<section aria-labelledby="e-verify"><h2 id="e-verify">Origin credential</h2>
<p><span id="credential-badge" class="badge" role="status" aria-live="polite" data-state="checking" data-keys-url="${esc(keysUrl)}">Checking...</span></p>
<p id="credential-detail"></p>
<p>A W3C Verifiable Credential (JWT) signed by ${esc(view.issuer)} with its published custody key, checked in this browser: its signature, the signed log checkpoint, the custody entry and its inclusion proof, and each claim against the diamond's record. Anyone can check it again offline: <code>dtp verify --credential FILE --keys custody-keys.json</code>, the credential being <a class="noprint" href="credential">this link's credential</a>.</p>
</section>
<section aria-labelledby="e-journey"><h2 id="e-journey">Journey</h2>
${journey}
</section>
</main>`;
  return pageFrame({
    title: 'Diamond origin evidence',
    styles: [EVIDENCE_STYLE],
    body,
    footer:
      '<footer><p>Participants are named by their public names. The credential, the custody log and the keys are public; the page carries no secret.</p></footer>',
    scripts: `<script src="/passport/assets/verify.js"></script>\n<script>${EVIDENCE_SCRIPT}</script>\n`,
  });
}
