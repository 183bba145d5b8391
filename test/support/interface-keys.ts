// The members of an exported interface, read from its source text: for docs tests that check a
// documented options list against the interface it documents (types leave nothing at run time).

/** The top-level keys of `export interface NAME { ... }` in `source`. */
export function interfaceKeys(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} {`);
  if (start < 0) throw new Error(`no interface ${name}`);
  const end = source.indexOf('\n}', start);
  return [...source.slice(start, end).matchAll(/^ {2}(?:readonly )?([A-Za-z]+)\??[:(]/gm)].map((match) => match[1]!);
}
