/** Audio codecs of the media engine. */
export {
  decodeMuLaw,
  decodeMuLawSample,
  encodeMuLaw,
  encodeMuLawSample,
  MU_LAW_SILENCE,
} from './mu-law';
