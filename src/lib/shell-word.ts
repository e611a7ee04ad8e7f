/** `text` as one word a POSIX shell reads back as it is: bare when safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@./:,+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
