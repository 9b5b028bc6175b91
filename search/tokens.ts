// Query words as the lexicon sees them: lower case, apostrophes dropped ("kids'" -> "kids",
// "don't" -> "dont"), every other character that is not a letter or digit a break ("lo-fi" ->
// "lo fi"), and a number glued to a unit split from it ("120bpm" -> "120 bpm").
const APOSTROPHES = /['’`]/g;
const BREAKS = /[^\p{L}\p{N}]+/gu;
const NUMBER_THEN_LETTERS = /(\d)(\p{L})/gu;

export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(BREAKS, ' ')
    .replace(NUMBER_THEN_LETTERS, '$1 $2')
    .split(' ')
    .filter((t) => t !== '');
}
