// docs/client.md's createHttpClient block names every option HttpClientOptions has.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { interfaceKeys } from '../support/interface-keys.ts';

const DOCS = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
const SOURCE = readFileSync(new URL('../../src/client/http-client.ts', import.meta.url), 'utf8');

describe('docs/client.md', () => {
  it('the createHttpClient block lists every option of HttpClientOptions', () => {
    const block = /```ts\ncreateHttpClient\(\{\n([\s\S]*?)\n\}\)\n```/.exec(DOCS)?.[1];
    expect(block).toBeDefined();
    const documented = [...block!.matchAll(/^ {2}([A-Za-z]+),/gm)].map((match) => match[1]!);
    const options = interfaceKeys(SOURCE, 'HttpClientOptions');
    expect(options.length).toBeGreaterThanOrEqual(12);
    expect(options.filter((key) => !documented.includes(key))).toEqual([]);
  });
});
