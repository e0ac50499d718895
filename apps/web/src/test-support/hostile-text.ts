/**
 * Hostile free text (issue 21): markup and script, SQL, template syntax, a `javascript:` URL,
 * LIKE wildcards and odd Unicode, for tests that show text and must show it as text.
 *
 * The server's tests keep the same list in `apps/server/src/test-support/hostile-text.ts`: the
 * web app never imports server code nor the reverse, and `packages/contracts` has no testing
 * subpath (it ships only what both sides run). Change both lists together.
 */

/** A hostile text and what it tries. */
export interface HostileText {
  readonly name: string;
  readonly text: string;
}

/**
 * Text that must be stored and shown exactly as given. None has leading or trailing white space:
 * the validators trim names, notes and SMS bodies (a documented normalisation, not a change).
 */
export const HOSTILE_TEXTS: readonly HostileText[] = [
  { name: 'script element', text: '<script>alert(1)</script>' },
  { name: 'img with onerror', text: '<img src=x onerror=alert(1)>' },
  { name: 'attribute break-out with svg onload', text: '"><svg onload=alert(1)>' },
  { name: 'SQL drop table', text: "'; DROP TABLE calls; --" },
  { name: 'SQL little Bobby Tables', text: "Robert'); DELETE FROM users;--" },
  { name: 'template expressions', text: '${7*7}{{7*7}}' },
  { name: 'javascript: URL', text: 'javascript:alert(1)' },
  { name: 'HTML entities (not to be decoded)', text: 'Tom &amp; Jerry &lt;b&gt;bold&lt;/b&gt;' },
  { name: 'LIKE wildcards and a backslash', text: '100% _off_ \\ sale' },
  { name: 'right-to-left override', text: 'invoice\u202Efdp.exe' },
  {
    name: 'zero-width joiner, non-joiner, space and word joiner',
    text: 'Ma\u200Dya\u200C Oka\u200Bfor\u2060!',
  },
  {
    name: 'combining marks (not to be normalised)',
    text: 'Zal\u0351\u0308\u0334go n\u0303 e\u0301 A\u030A',
  },
  {
    name: 'emoji ZWJ sequences and skin tones',
    text: '\u{1F469}\u{1F3FD}\u200D\u{1F4BB} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466} \u{1F91D}\u{1F3FF} \u{1F3F3}\uFE0F\u200D\u{1F308}',
  },
  {
    name: 'astral plane characters',
    text: '\u{1D573}\u{1D58A}\u{1D591}\u{1D591}\u{1D594} \u{2070E}\u{20731} \u{13000} \u{1F004}',
  },
];

/** Text the server refuses with a 422 (it cannot be stored as given), with the error's ending. */
export const UNSTORABLE_TEXTS: ReadonlyArray<HostileText & { readonly error: string }> = [
  { name: 'NUL character', text: 'before\u0000after', error: 'may not contain the NUL character.' },
  {
    name: 'unpaired surrogate (half an emoji)',
    text: 'half \uD83D of an emoji',
    error: 'is not valid Unicode text.',
  },
];

const FILLER = '<b>Ünïcødé & "quotes"</b> ';

/**
 * Hostile text of exactly `length` UTF-16 code units, the unit the validators count (zod's
 * `max`). Only BMP characters, so cutting it never splits a surrogate pair.
 */
export function hostileTextOfLength(length: number): string {
  return FILLER.repeat(Math.ceil(length / FILLER.length) + 1)
    .slice(0, length)
    .replace(/\s$/, 'x');
}
