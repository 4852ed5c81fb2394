import { createHash } from 'node:crypto';
import { GRADING_LAB_VALUES, ID_MAX_LENGTH } from '@dtp/domain';
import { esc, pageFrame, STYLE } from './passport-page';

/**
 * The passport's "look up by report number" pages (DESIGN.md "Looking a diamond up by what people hold"): a form
 * that finds a diamond's passport by its grading report number only when its holder shared it (a live share link),
 * and otherwise always the same 404 page. Server-rendered HTML without any script; the passport's look.
 */

/** The form's own rules (WCAG AA contrast on white, visible focus). */
export const LOOKUP_STYLE = `
form.lookup{display:grid;gap:.75rem;max-width:28rem;margin:1rem 0}
form.lookup label{font-weight:600}
form.lookup input,form.lookup select{font:inherit;padding:.4rem .5rem;border:1px solid #595959;border-radius:.25rem;color:#1a1a1a;background:#fff}
form.lookup button{font:inherit;font-weight:700;justify-self:start;padding:.45rem 1.1rem;border:2px solid #3b2f80;border-radius:.25rem;color:#fff;background:#3b2f80;cursor:pointer}
form.lookup :focus-visible{outline:3px solid #1f3a5f;outline-offset:2px}
.hint{margin:0;color:#444;font-size:.9rem}
.error{margin:0;color:#a4161a;font-weight:600}
`.trim();

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The look-up pages' policy: no script at all, the passport's and the form's styles by hash, the form posting to
 * this service only (Chromium also checks the 303's target against it: a same-origin path).
 */
export const LOOKUP_CSP = `default-src 'none'; style-src ${hash(STYLE)} ${hash(LOOKUP_STYLE)}; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

/** The form's field names (application/x-www-form-urlencoded). */
export const LOOKUP_FIELDS = { reportNumber: 'report_number', gradingLab: 'grading_lab' } as const;

const FOOTER =
  "<footer><p>Diamond traceability platform: an open, tamper-evident record of each diamond's journey. A passport is found here only when the diamond's holder has shared it.</p></footer>";

function page(title: string, main: string): string {
  return pageFrame({
    title,
    styles: [STYLE, LOOKUP_STYLE],
    body: `<header><p>Diamond traceability platform</p><h1>${esc(title)}</h1></header>\n<main>\n${main}\n</main>`,
    footer: FOOTER,
  });
}

/**
 * The form. It never echoes what was typed (every answer to a failed look-up is then the same bytes); `error`, when
 * given, is a fixed text about the input's form (never about any diamond), tied to the field for screen readers.
 */
function form(error?: string): string {
  const invalid = error ? ' aria-invalid="true" aria-describedby="report-error report-hint"' : ' aria-describedby="report-hint"';
  const labs = GRADING_LAB_VALUES.map((lab) => `<option value="${esc(lab)}">${esc(lab)}</option>`).join('');
  return `<form class="lookup" method="post" action="/passport/lookup">
<label for="report-number">Grading report number</label>
${error ? `<p class="error" id="report-error">${esc(error)}</p>` : ''}<input id="report-number" name="${LOOKUP_FIELDS.reportNumber}" type="text" required maxlength="${ID_MAX_LENGTH}" autocomplete="off" spellcheck="false"${invalid}>
<p class="hint" id="report-hint">As printed on the grading report (letters in any case).</p>
<label for="grading-lab">Grading lab</label>
<select id="grading-lab" name="${LOOKUP_FIELDS.gradingLab}"><option value="">Any lab</option>${labs}</select>
<button type="submit">Look up</button>
</form>`;
}

const INTRO =
  "<p>Have a diamond's grading report? Enter its number to open the diamond's passport: its journey from the mine, checked against the platform's tamper-evident custody log.</p>";

/** `GET /passport/lookup`: the form. */
export function renderLookupForm(): string {
  return page(
    'Find a diamond passport',
    `<section aria-labelledby="s-lookup"><h2 id="s-lookup">Look up by report number</h2>\n${INTRO}\n${form()}\n</section>`,
  );
}

/** 422: the input itself is unusable (empty, too long, not text, an unknown lab); says nothing about any diamond. */
export function renderLookupInvalid(error: string): string {
  return page(
    'Find a diamond passport',
    `<section aria-labelledby="s-lookup"><h2 id="s-lookup">Look up by report number</h2>\n${INTRO}\n${form(error)}\n</section>`,
  );
}

/**
 * 404: no shared passport for that number. The same bytes for every failed look-up: an unknown number, a diamond
 * that exists but whose holder shared nothing (or whose links were revoked or expired), a deleted diamond.
 */
export function renderLookupNotFound(): string {
  return page(
    'Passport not found',
    `<section aria-labelledby="s-lookup"><h2 id="s-lookup">No shared passport for that number</h2>
<p>Either no diamond has that report number, or its holder has not shared its passport (or the link was revoked or has expired). Check the number, or ask the seller for the passport's link or QR code.</p>
${form()}
</section>`,
  );
}

/** 429: too many look-ups from this address. */
export function renderLookupLimited(retryAfterSeconds: number): string {
  return page(
    'Too many look-ups',
    `<section aria-labelledby="s-lookup"><h2 id="s-lookup">Please wait</h2>
<p>Too many look-ups came from your address. Try again in ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.</p>
</section>`,
  );
}

/** 200: several shared diamonds have that report number (different labs): links to each one's passport. */
export function renderLookupChoices(choices: readonly { shareId: string; lab: string | null; carats: string | null }[]): string {
  const items = choices
    .map((c, i) => {
      const label = [c.lab ? `graded by ${c.lab}` : null, c.carats ? `${c.carats} ct` : null].filter(Boolean).join(', ');
      return `<li><a href="/passport/${esc(encodeURIComponent(c.shareId))}">Passport ${i + 1}${label ? ` (${esc(label)})` : ''}</a></li>`;
    })
    .join('');
  return page(
    'Several passports found',
    `<section aria-labelledby="s-lookup"><h2 id="s-lookup">Several diamonds have that report number</h2>
<p>Reports of different labs can share a number. Choose the passport of yours, or look up again with the lab that graded it.</p>
<ul>${items}</ul>
${form()}
</section>`,
  );
}
