// `${NAME}` references in config string values, replaced with environment variables so secrets
// stay out of the file. Runs on the parsed YAML (a value can never break the YAML syntax).
// `$${NAME}` writes a literal `${NAME}`. A mapping with `enabled: false` is left untouched: a
// switched-off section may keep references to variables that are not set.

export interface UnsetVariable {
  /** Where the reference is in the file. */
  path: (string | number)[];
  variable: string;
  /** true when the variable is set but empty. */
  empty: boolean;
}

export interface MalformedReference {
  path: (string | number)[];
  /** The text between the braces. */
  reference: string;
}

export interface SubstitutionResult {
  value: unknown;
  unset: UnsetVariable[];
  malformed: MalformedReference[];
  /** Where a value holds text from the environment: an error there must not repeat it (it may be a secret). */
  fromEnv: (string | number)[][];
  /** The text each reference put in, with where: the logs may have to scrub it (it may be a secret). */
  envTexts: { path: (string | number)[]; text: string }[];
}

const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function substituteEnv(value: unknown, env: Readonly<Record<string, string | undefined>>): SubstitutionResult {
  const unset: UnsetVariable[] = [];
  const malformed: MalformedReference[] = [];
  const fromEnv: (string | number)[][] = [];
  const envTexts: { path: (string | number)[]; text: string }[] = [];

  const substituteString = (text: string, path: (string | number)[]): string =>
    text.replace(REFERENCE, (whole, escaped: string, name: string) => {
      if (escaped === '$') return whole.slice(1);
      if (!VARIABLE_NAME.test(name)) {
        malformed.push({ path, reference: name });
        return whole;
      }
      const found = Object.hasOwn(env, name) ? env[name] : undefined;
      if (found === undefined || found === '') {
        unset.push({ path, variable: name, empty: found === '' });
        return '';
      }
      if (fromEnv.at(-1) !== path) fromEnv.push(path);
      envTexts.push({ path, text: found });
      return found;
    });

  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return substituteString(node, path);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>;
      if (record.enabled === false) return node;
      // fromEntries defines own properties, so a `__proto__` key stays a plain key.
      return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };

  return { value: walk(value, []), unset, malformed, fromEnv, envTexts };
}
