/**
 * What the phone field lets through (spec section 5: input restricted to digits, plus,
 * parentheses, hyphen and whitespace, or to a custom pattern; default maximum length 25), and
 * where the caret goes when the text is reformatted.
 */

/**
 * Which characters the field takes: `phone` (digits, `+`, parentheses, hyphen, whitespace),
 * `any`, or a custom pattern that the whole text must match (`/^\d*$/`).
 */
export type PhoneCharacters = 'phone' | 'any' | RegExp;

const PHONE_CHARACTER = /[\d+()\-\s]/;

/** The text after an edit, and where its caret is. */
export interface EditedText {
  readonly text: string;
  readonly caret: number;
}

/**
 * Applies the field's rules to an edit: in `phone` mode other characters are dropped (so a
 * pasted `tel: +1 (415) 555-0132` keeps its number); with a custom pattern an edit whose text
 * does not match is refused (null); text over `maxLength` is cut.
 */
export function acceptEdit(
  edit: EditedText,
  characters: PhoneCharacters,
  maxLength: number,
): EditedText | null {
  let { text, caret } = edit;
  if (characters === 'phone') {
    let kept = '';
    let keptBeforeCaret = 0;
    [...text].forEach((char, index) => {
      if (!PHONE_CHARACTER.test(char)) return;
      kept += char;
      if (index < caret) keptBeforeCaret += 1;
    });
    text = kept;
    caret = keptBeforeCaret;
  } else if (characters instanceof RegExp) {
    characters.lastIndex = 0;
    if (!characters.test(text)) return null;
  }
  if (text.length > maxLength) text = text.slice(0, maxLength);
  return { text, caret: Math.min(caret, text.length) };
}

const SIGNIFICANT = /[\d+]/;

/**
 * The caret position in `next` that keeps it after the same digits as `caret` in `previous`
 * (so reformatting `4155550132` to `(415) 555-0132` does not move the caret off its digit).
 */
export function caretAfterReformat(previous: string, caret: number, next: string): number {
  let significant = 0;
  for (const char of previous.slice(0, caret)) if (SIGNIFICANT.test(char)) significant += 1;
  if (significant === 0) return 0;
  let seen = 0;
  for (let index = 0; index < next.length; index++) {
    if (SIGNIFICANT.test(next[index]!)) seen += 1;
    if (seen === significant) return index + 1;
  }
  return next.length;
}
