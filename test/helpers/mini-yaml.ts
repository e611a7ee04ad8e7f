/**
 * A strict reader of the YAML subset a GitHub Actions workflow in our docs uses: block mappings
 * and sequences, `|` block scalars, flow sequences of plain words, plain and quoted scalars,
 * full-line comments. Anything else (tabs, anchors, a line at an unexpected indent) throws, so a
 * workflow this accepts has the structure it appears to have. For tests only.
 */
export function parseYamlSubset(text: string): unknown {
  const lines = text.split('\n').map((raw, index) => {
    if (/^\s*\t/.test(raw)) throw new Error(`line ${index + 1}: tab in indentation`);
    return { raw, indent: raw.length - raw.trimStart().length, text: raw.trim(), number: index + 1 };
  });
  let pos = 0;
  const skip = () => {
    while (pos < lines.length && (lines[pos].text === '' || lines[pos].text.startsWith('#'))) pos++;
  };
  const fail = (message: string): never => {
    throw new Error(`line ${lines[Math.min(pos, lines.length - 1)].number}: ${message}`);
  };
  const isItem = (t: string) => t === '-' || t.startsWith('- ');

  const scalar = (t: string): unknown => {
    if (/^[&*!|>]/.test(t) || t.startsWith('{')) fail(`unsupported construct: ${t}`);
    if (t.startsWith('"')) return JSON.parse(t);
    if (t.startsWith("'")) {
      if (!t.endsWith("'") || t.length < 2) fail(`unterminated quote: ${t}`);
      return t.slice(1, -1).replace(/''/g, "'");
    }
    if (t.startsWith('[')) {
      if (!t.endsWith(']')) fail(`unterminated flow sequence: ${t}`);
      const inner = t.slice(1, -1).trim();
      return inner === '' ? [] : inner.split(',').map((part) => scalar(part.trim()));
    }
    if (/\s#/.test(t)) fail(`comment after a value is not supported: ${t}`);
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null' || t === '~') return null;
    if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
    return t;
  };

  const blockScalar = (parentIndent: number): string => {
    const body: string[] = [];
    let indent: number | undefined;
    while (pos < lines.length) {
      const line = lines[pos];
      if (line.text !== '') {
        if (line.indent <= parentIndent) break;
        indent ??= line.indent;
        if (line.indent < indent) fail('block scalar line less indented than its first line');
      }
      body.push(line.text === '' ? '' : line.raw.slice(indent));
      pos++;
    }
    while (body.length > 0 && body[body.length - 1] === '') body.pop();
    return body.join('\n') + '\n';
  };

  const value = (rest: string | undefined, indent: number): unknown => {
    if (rest === '|') return blockScalar(indent);
    if (rest !== undefined && rest !== '') return scalar(rest);
    skip();
    if (pos < lines.length && lines[pos].indent > indent) return block(lines[pos].indent);
    // A sequence may sit at its key's indent.
    if (pos < lines.length && lines[pos].indent === indent && isItem(lines[pos].text)) return block(indent);
    return null;
  };

  const mapping = (indent: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (skip(); pos < lines.length && lines[pos].indent === indent && !isItem(lines[pos].text); skip()) {
      const match = /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(lines[pos].text);
      if (!match) fail(`expected "key: value", got ${lines[pos].text}`);
      const [, key, rest] = match!;
      if (key in out) fail(`duplicate key ${key}`);
      pos++;
      out[key] = value(rest, indent);
    }
    return out;
  };

  const sequence = (indent: number): unknown[] => {
    const out: unknown[] = [];
    for (skip(); pos < lines.length && lines[pos].indent === indent && isItem(lines[pos].text); skip()) {
      const item = lines[pos].text.slice(1).trimStart();
      if (item === '') {
        pos++;
        out.push(value(undefined, indent));
      } else if (/^[A-Za-z0-9_.-]+:(\s|$)/.test(item)) {
        // `- key: value` opens a mapping whose keys sit two columns in.
        lines[pos] = { ...lines[pos], indent: indent + 2, text: item };
        out.push(mapping(indent + 2));
      } else {
        pos++;
        out.push(scalar(item));
      }
    }
    return out;
  };

  const block = (indent: number): unknown => (isItem(lines[pos].text) ? sequence(indent) : mapping(indent));

  skip();
  const doc = block(lines[pos].indent);
  skip();
  if (pos < lines.length) fail(`unexpected indentation: ${lines[pos].text}`);
  return doc;
}
