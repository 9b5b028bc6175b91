// Query words as the lexicon sees them: in Unicode's compatibility form (NFKC: a decomposed accent
// joins its letter, full-width letters are letters), invisible format characters dropped (a
// zero-width space does not split a word), lower case, apostrophes dropped ("kids'" -> "kids",
// "don't" -> "dont"), every other character that is not a letter, mark or digit a break ("lo-fi" ->
// "lo fi"), and a number glued to a unit split from it ("120bpm" -> "120 bpm").
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const APOSTROPHES = /['’`]/g;
const BREAKS = /[^\p{L}\p{M}\p{N}]+/gu;
const NUMBER_THEN_LETTERS = /(\d)(\p{L})/gu;

export function tokens(text: string): string[] {
  return text
    .normalize('NFKC')
    .replace(FORMAT_CHARACTERS, '')
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(BREAKS, ' ')
    .replace(NUMBER_THEN_LETTERS, '$1 $2')
    .split(' ')
    .filter((t) => t !== '');
}
