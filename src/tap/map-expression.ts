import { createHash } from 'node:crypto';
import { stringifyJson } from '../lib/exact-number.js';

// The expressions of `stream_maps` the tap evaluates: the common forms of the Meltano SDK's
// (docs/singer.md, "Stream maps"), in a grammar of their own, never Python:
//   expr := term ('+' term)*
//   term := 'text' | "text" | name | record['name'] | _['name'] | config['name'] | md5(expr) | sha256(expr)
// A bare name is the record's property of that name, or `self` (the property's own value),
// `__stream_name__`, `__original_stream_name__`. Anything else is refused when the config is read.

/** A compiled expression. */
export type Expression =
  | { kind: 'text'; value: string }
  | { kind: 'property'; name: string }
  | { kind: 'config'; name: string }
  | { kind: 'self' | 'stream' | 'original' }
  | { kind: 'hash'; algorithm: 'md5' | 'sha256'; arg: Expression }
  | { kind: 'join'; parts: Expression[] };

/** What an expression reads besides the record. */
interface ExpressionScope {
  record: Readonly<Record<string, unknown>>;
  /** The value of the property the expression sets, when the record has it. */
  self: unknown;
  stream: string;
  original: string;
  config: Readonly<Record<string, unknown>>;
}

const SUPPORTED =
  "supported: a property name, record['name'], config['name'], a quoted text, md5(...), sha256(...), joined with +";

/** Parses `text`; throws an Error whose message says what is not supported. */
export function compileExpression(text: string): Expression {
  const parser = new Parser(text);
  const expr = parser.expr();
  parser.end();
  return expr;
}

/** The value of `expr` for a record: a hash of null is null, and so is a join with a null part. */
export function evaluate(expr: Expression, scope: ExpressionScope): unknown {
  switch (expr.kind) {
    case 'text':
      return expr.value;
    case 'property':
      return Object.hasOwn(scope.record, expr.name) ? scope.record[expr.name] : null;
    case 'config':
      return scope.config[expr.name];
    case 'self':
      return scope.self ?? null;
    case 'stream':
      return scope.stream;
    case 'original':
      return scope.original;
    case 'hash': {
      const value = evaluate(expr.arg, scope);
      return value === null || value === undefined
        ? null
        : createHash(expr.algorithm).update(textOf(value), 'utf8').digest('hex');
    }
    case 'join': {
      let out = '';
      for (const part of expr.parts) {
        const value = evaluate(part, scope);
        if (value === null || value === undefined) return null;
        out += textOf(value);
      }
      return out;
    }
  }
}

/** A string as it is; any other value as its JSON text (digits as sent). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJson(value);
}

/** The record properties an expression reads (checked against the stream's schema). */
export function propertiesRead(expr: Expression): string[] {
  if (expr.kind === 'property') return [expr.name];
  if (expr.kind === 'hash') return propertiesRead(expr.arg);
  if (expr.kind === 'join') return expr.parts.flatMap(propertiesRead);
  return [];
}

/** The config members an expression reads (checked against stream_map_config). */
export function configRead(expr: Expression): string[] {
  if (expr.kind === 'config') return [expr.name];
  if (expr.kind === 'hash') return configRead(expr.arg);
  if (expr.kind === 'join') return expr.parts.flatMap(configRead);
  return [];
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  expr(): Expression {
    const parts = [this.term()];
    while (this.take('+')) parts.push(this.term());
    return parts.length === 1 ? parts[0] : { kind: 'join', parts };
  }

  end(): void {
    this.space();
    if (this.at < this.text.length) this.fail(`unexpected "${this.text.slice(this.at, this.at + 12)}"`);
  }

  private term(): Expression {
    this.space();
    const c = this.text[this.at];
    if (c === "'" || c === '"') return { kind: 'text', value: this.quoted() };
    NAME.lastIndex = this.at;
    const name = NAME.exec(this.text)?.[0];
    if (name === undefined) this.fail(c === undefined ? 'the expression ends early' : `unexpected "${c}"`);
    this.at += name.length;
    if (this.take('(')) {
      if (name !== 'md5' && name !== 'sha256') this.fail(`no function ${name}()`);
      const arg = this.expr();
      if (!this.take(')')) this.fail('a ")" is missing');
      return { kind: 'hash', algorithm: name, arg };
    }
    if (this.take('[')) {
      if (name !== 'record' && name !== '_' && name !== 'config') this.fail(`${name}[...] is not supported`);
      this.space();
      const quote = this.text[this.at];
      if (quote !== "'" && quote !== '"') this.fail(`${name}[...] takes a quoted name`);
      const member = this.quoted();
      if (!this.take(']')) this.fail('a "]" is missing');
      return name === 'config' ? { kind: 'config', name: member } : { kind: 'property', name: member };
    }
    this.space();
    if (this.text[this.at] === '.') this.fail(`${name}.…: methods and attributes are not supported`);
    if (name === 'self') return { kind: 'self' };
    if (name === '__stream_name__') return { kind: 'stream' };
    if (name === '__original_stream_name__') return { kind: 'original' };
    if (name === 'record' || name === '_' || name === 'config') this.fail(`${name} alone is not supported`);
    return { kind: 'property', name };
  }

  /** A quoted text from the quote at hand (\\ and \' or \" escaped), the quote past. */
  private quoted(): string {
    const quote = this.text[this.at++];
    let out = '';
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined) this.fail('a quote is not closed');
      if (c === quote) return out;
      if (c === '\\') {
        const next = this.text[this.at++];
        if (next !== '\\' && next !== "'" && next !== '"') this.fail(`the escape \\${next ?? ''} is not supported`);
        out += next;
      } else out += c;
    }
  }

  private take(token: string): boolean {
    this.space();
    if (this.text[this.at] !== token) return false;
    this.at++;
    return true;
  }

  private space(): void {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\t') this.at++;
  }

  private fail(why: string): never {
    throw new Error(`${why} (${SUPPORTED})`);
  }
}
