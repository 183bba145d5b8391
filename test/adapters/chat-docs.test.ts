// docs/chat.md's "For developers" signatures name every option the functions take.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { interfaceKeys } from '../support/interface-keys.ts';

const DOCS = readFileSync(new URL('../../docs/chat.md', import.meta.url), 'utf8');
const source = (path: string) => readFileSync(new URL(`../../src/adapters/${path}`, import.meta.url), 'utf8');

/** The option names of `` `NAME({ a, b?, ... })` `` in the doc. */
function documentedOptions(name: string): string[] {
  const list = new RegExp(`\`${name}\\(\\{ ([^}]*) \\}\\)\``).exec(DOCS)?.[1];
  if (list === undefined) throw new Error(`docs/chat.md shows no ${name}({ ... })`);
  return list.split(',').map((option) => option.trim().replace(/\?$/, ''));
}

describe('docs/chat.md, For developers', () => {
  it.each([
    ['createLocalChatTransport', 'local-chat/local-chat-transport.ts', 'LocalChatOptions'],
    ['createViewerRegistrationQueue', 'viewer-registration-queue.ts', 'ViewerRegistrationQueueOptions'],
  ])('%s({ ... }) lists every option of its options interface', (name, file, options) => {
    const keys = interfaceKeys(source(file), options);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !documentedOptions(name).includes(key))).toEqual([]);
  });

  it('registerLocalChatSayRoute(app, localChat, { ... }) lists every option of LocalChatSayRouteOptions', () => {
    const list = /`registerLocalChatSayRoute\(app, localChat, \{ ([^}]*) \}\)`/.exec(DOCS)?.[1];
    expect(list, 'docs/chat.md shows registerLocalChatSayRoute(app, localChat, { ... })').toBeDefined();
    const documented = list!.split(',').map((option) => option.trim().replace(/\?$/, ''));
    const keys = interfaceKeys(source('local-chat/local-chat-say-route.ts'), 'LocalChatSayRouteOptions');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !documented.includes(key))).toEqual([]);
  });
});
