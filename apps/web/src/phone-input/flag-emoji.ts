/**
 * Country flags as emoji (two regional-indicator symbols), so the list needs no images and no
 * network. Where the system has no colour flag glyphs (Windows, Linux without an emoji font)
 * the pair would show as letters or boxes, so the input checks once and shows the ISO code in a
 * small badge instead.
 */

/** How flags are drawn: emoji, the ISO code as letters, or whichever the system can show. */
export type FlagStyle = 'emoji' | 'letters' | 'auto';

const REGIONAL_INDICATOR_A = 0x1f1e6;
const LETTER_A = 'A'.charCodeAt(0);

/** The flag emoji of an ISO code (`GB` → 🇬🇧). */
export function flagEmoji(iso2: string): string {
  return String.fromCodePoint(
    ...[...iso2.toUpperCase()].map((char) => REGIONAL_INDICATOR_A + char.charCodeAt(0) - LETTER_A),
  );
}

/** A 2D canvas as far as the check needs one. */
interface ProbeContext {
  font: string;
  textBaseline: string;
  fillStyle: string;
  fillText(text: string, x: number, y: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
}

/** Makes a small canvas to draw on, or null where there is none. */
export type ProbeCanvasFactory = (size: number) => ProbeContext | null;

const PROBE_SIZE_PX = 24;
/** A channel difference above this is colour, not grey anti-aliasing. */
const COLOUR_DIFFERENCE = 40;

function offscreenProbe(size: number): ProbeContext | null {
  if (typeof OffscreenCanvas === 'undefined') return null;
  try {
    return new OffscreenCanvas(size, size).getContext('2d', {
      willReadFrequently: true,
    }) as ProbeContext | null;
  } catch {
    return null;
  }
}

let detected: boolean | null = null;

/**
 * Whether the system draws flag emoji in colour: draws 🇺🇸 in black and looks for coloured
 * pixels (letters or a missing-glyph box stay grey). Checked once; false without a canvas.
 */
export function supportsFlagEmoji(makeCanvas: ProbeCanvasFactory = offscreenProbe): boolean {
  if (detected !== null && makeCanvas === offscreenProbe) return detected;
  const context = makeCanvas(PROBE_SIZE_PX);
  let result = false;
  if (context) {
    context.font = `${PROBE_SIZE_PX - 4}px "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", sans-serif`;
    context.textBaseline = 'top';
    context.fillStyle = '#000';
    context.fillText(flagEmoji('US'), 0, 0);
    const { data } = context.getImageData(0, 0, PROBE_SIZE_PX, PROBE_SIZE_PX);
    for (let i = 0; i + 2 < data.length && !result; i += 4) {
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      result = Math.max(r, g, b) - Math.min(r, g, b) > COLOUR_DIFFERENCE;
    }
  }
  if (makeCanvas === offscreenProbe) detected = result;
  return result;
}

/** The style to draw: `auto` becomes emoji or letters by what the system supports. */
export function resolveFlagStyle(style: FlagStyle): 'emoji' | 'letters' {
  if (style !== 'auto') return style;
  return supportsFlagEmoji() ? 'emoji' : 'letters';
}
