/** The tag colour rules live in the contracts: the admin API refuses colours the console could not label readably. */
export {
  DARK_TEXT,
  LIGHT_TEXT,
  parseHexColour,
  relativeLuminance,
  contrastRatio,
  tagBackground,
  readableTextOn,
  tagTextContrast,
  TAG_MIN_CONTRAST,
} from '@leadline/contracts/lib';
