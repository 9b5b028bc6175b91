// PostgreSQL's tsvector in its text form ("'acoust':5B 'dark':1A,7C 'x'"), parsed into its
// lexemes in stored order, each with the weight class (A-D) of every position; an entry without
// positions counts as one position of class D, as PostgreSQL's own ranking counts it.
export type WeightClass = 'A' | 'B' | 'C' | 'D';

export interface DocumentLexeme {
  lexeme: string;
  /** The weight class of each position, in stored order. */
  classes: WeightClass[];
}

export function parseTsvector(text: string): DocumentLexeme[] {
  const lexemes: DocumentLexeme[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    let lexeme = '';
    i++;
    for (;;) {
      const ch = text[i];
      if (ch === '\\') {
        lexeme += text[i + 1];
        i += 2;
      } else if (ch === "'" && text[i + 1] === "'") {
        lexeme += "'";
        i += 2;
      } else if (ch === "'" || ch === undefined) {
        i++;
        break;
      } else {
        lexeme += ch;
        i++;
      }
    }
    const classes: WeightClass[] = [];
    if (text[i] === ':') {
      i++;
      while (i < text.length && text[i] !== ' ') {
        while (text[i] >= '0' && text[i] <= '9') i++;
        const letter = text[i];
        if (letter === 'A' || letter === 'B' || letter === 'C' || letter === 'D') {
          classes.push(letter);
          i++;
        } else classes.push('D');
        if (text[i] === ',') i++;
      }
    }
    lexemes.push({ lexeme, classes: classes.length ? classes : ['D'] });
  }
  return lexemes;
}
