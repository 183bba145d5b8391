// A value a plugin gave where another kind was wanted (plugins run without a type check), named
// in the refusal: what it is, never String() of it, which says "[object Object]", dumps a
// function's source and throws for an object without a prototype.

/** `undefined`, `null`, `42`, `true`; else "a list", "an object", "a function", "a symbol". */
export function givenValue(value: unknown): string {
  const kind = typeof value;
  if (kind === 'symbol') return 'a symbol';
  if (kind === 'function') return 'a function';
  if (Array.isArray(value)) return 'a list';
  if (value !== null && kind === 'object') return 'an object';
  return String(value);
}
