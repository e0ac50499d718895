import { TAG_MIN_CONTRAST, tagTextContrast } from '@leadline/contracts/lib';

/** What the tag editor says of a colour's contrast as it is picked. */
export interface ContrastVerdict {
  /** The contrast of the readable text on the colour, or null when it is not a colour. */
  readonly ratio: number | null;
  readonly readable: boolean;
  /** 'Contrast 4.8:1 — readable' or 'Contrast 4.3:1 — too low: pick a darker or lighter colour'. */
  readonly text: string;
}

/**
 * The contrast of the console's readable text (dark or light, whichever is better) on
 * `colour`, and whether it reaches {@link TAG_MIN_CONTRAST} (the server refuses it otherwise).
 * The ratio is shown rounded down to one decimal, so a shown 4.5 is never a refused 4.49.
 */
export function contrastVerdict(colour: string): ContrastVerdict {
  const ratio = tagTextContrast(colour);
  if (ratio === null) {
    return { ratio, readable: false, text: 'Not a colour: use a hex colour such as #1a73e8.' };
  }
  const shown = (Math.floor(ratio * 10) / 10).toFixed(1);
  const readable = ratio >= TAG_MIN_CONTRAST;
  return {
    ratio,
    readable,
    text: readable
      ? `Contrast ${shown}:1 — readable`
      : `Contrast ${shown}:1 — too low: pick a darker or lighter colour`,
  };
}
