/**
 * JSON text of a value, at most `maxChars` characters (then cut, ending in `…`), built iteratively: unlike
 * JSON.stringify it neither overflows the stack on a value nested 100,000 levels deep nor builds megabytes of text
 * it will throw away. For keeping (the start of) a parked message readable. NUL characters come out escaped
 * (`\u0000`), so the text can be stored in a PostgreSQL `text` column.
 */
export function boundedJsonText(value: unknown, maxChars: number): string {
  let out = '';
  const stack: ({ v: unknown } | string)[] = [{ v: value }];
  while (stack.length > 0 && out.length <= maxChars) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out += item;
      continue;
    }
    const v = item.v;
    if (v === null || v === undefined || typeof v === 'function' || typeof v === 'symbol') out += 'null';
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out += JSON.stringify(v);
    else if (typeof v === 'bigint') out += String(v);
    else if (Array.isArray(v)) {
      out += '[';
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i -= 1) {
        stack.push({ v: v[i] });
        if (i > 0) stack.push(',');
      }
    } else {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj);
      out += '{';
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        stack.push({ v: obj[keys[i]] });
        stack.push(`${JSON.stringify(keys[i])}:`);
        if (i > 0) stack.push(',');
      }
    }
  }
  return out.length > maxChars || stack.length > 0 ? `${out.slice(0, maxChars)}…` : out;
}

/** Text safe for a PostgreSQL `text` column (no NUL), at most `maxChars` characters. */
export function storableText(text: string, maxChars: number): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return cut.replace(/\u0000/g, '\\u0000');
}
