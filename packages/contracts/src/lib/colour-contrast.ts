/**
 * Readable text on a coloured background (the Tags & Stages buttons take each tag's `color`):
 * WCAG 2 relative luminance and contrast ratio, and the darker or lighter text colour, whichever
 * contrasts more. Colours are `#rgb` or `#rrggbb` as the server stores them; anything else is
 * not trusted as a background.
 */

/** Dark text for light backgrounds. */
export const DARK_TEXT = '#111418';
/** Light text for dark backgrounds. */
export const LIGHT_TEXT = '#ffffff';

/** The colour as [r, g, b] (0–255), or null when it is not `#rgb` / `#rrggbb`. */
export function parseHexColour(colour: string): [number, number, number] | null {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!match) return null;
  const hex = match[1]!;
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG 2 relative luminance of an sRGB colour (0 black … 1 white). */
export function relativeLuminance([r, g, b]: readonly [number, number, number]): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG 2 contrast ratio between two luminances (1 … 21). */
export function contrastRatio(a: number, b: number): number {
  const [light, dark] = a > b ? [a, b] : [b, a];
  return (light + 0.05) / (dark + 0.05);
}

/** The background to use for `colour`: itself when it is a hex colour, else null. */
export function tagBackground(colour: string): string | null {
  return parseHexColour(colour) ? colour.trim() : null;
}

/** Dark or light text, whichever contrasts more with `background` (dark when unknown). */
export function readableTextOn(background: string): string {
  const rgb = parseHexColour(background);
  if (!rgb) return DARK_TEXT;
  const bg = relativeLuminance(rgb);
  const dark = relativeLuminance(parseHexColour(DARK_TEXT)!);
  const light = relativeLuminance(parseHexColour(LIGHT_TEXT)!);
  return contrastRatio(bg, dark) >= contrastRatio(bg, light) ? DARK_TEXT : LIGHT_TEXT;
}

/** The least contrast a tag's text must have on its colour (WCAG 2 AA for normal text). */
export const TAG_MIN_CONTRAST = 4.5;

/** The contrast of the readable text (dark or light, `readableTextOn`) on `colour`; null when not a colour. */
export function tagTextContrast(colour: string): number | null {
  const rgb = parseHexColour(colour);
  if (!rgb) return null;
  const bg = relativeLuminance(rgb);
  const text = relativeLuminance(parseHexColour(readableTextOn(colour))!);
  return contrastRatio(bg, text);
}
