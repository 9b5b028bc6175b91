// How an error message quotes a value the client sent: its type and a bounded preview, never the
// value serialised whole (a long or deeply nested value would make the message as large as the
// body, or overflow the stack while being serialised).

/** Characters of a string value quoted in a message. */
const PREVIEW_CHARS = 40;

/** The value's type and a short preview, e.g. `the string "xxxx…" (20000 characters)`, `an array of 3 items`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  switch (typeof value) {
    case 'string':
      return `the string ${quoted(value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'object': {
      const fields = Object.keys(value as object).length;
      return `an object with ${fields} ${fields === 1 ? 'field' : 'fields'}`;
    }
    default:
      return `a value of type ${typeof value}`;
  }
}

/** A client's text in quotes, cut to a bounded preview when long: `"abc"`, `"abcd…" (20000 characters)`. */
export function quoted(text: string): string {
  if (text.length <= PREVIEW_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(`${text.slice(0, PREVIEW_CHARS)}…`)} (${text.length} characters)`;
}
