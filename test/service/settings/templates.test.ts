import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CATALOG_DEFAULTS, SETTINGS } from '../../../src/service/settings/catalog.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';

describe('the shipped templates', () => {
  const templates = loadTemplates(DEFAULT_TEMPLATES_DIR);
  const bubbles = templates.find((t) => t.slug === 'bubbles')!;
  const ticker = templates.find((t) => t.slug === 'ticker')!;

  it('DEFAULT_TEMPLATES_DIR is the absolute path of config/templates', () => {
    expect(path.isAbsolute(DEFAULT_TEMPLATES_DIR)).toBe(true);
    expect(DEFAULT_TEMPLATES_DIR).toBe(path.resolve(import.meta.dirname, '../../../config/templates'));
  });

  it('are bubbles (1) and ticker (2), sorted by id', () => {
    expect(templates.map((t) => [t.id, t.slug, t.name])).toEqual([[1, 'bubbles', 'Bubbles'], [2, 'ticker', 'Ticker']]);
    expect(bubbles.description).toMatch(/bubbles/);
  });

  it('bubbles uses every catalog key, in catalog order, with the catalog defaults', () => {
    expect(bubbles.keys).toEqual(SETTINGS.map((s) => s.key));
    expect(bubbles.defaults).toEqual(CATALOG_DEFAULTS);
    expect(Object.keys(bubbles.defaults)).toEqual(SETTINGS.map((s) => s.key));
  });

  it('ticker has no bubble.* or avatar.* keys', () => {
    expect(ticker.keys.some((k) => k.startsWith('bubble.') || k.startsWith('avatar.'))).toBe(false);
    expect(ticker.keySet.has('bubble.width')).toBe(false);
    expect(ticker.keySet.has('avatar.size')).toBe(false);
    expect(ticker.keySet.has('username.position')).toBe(true);
    expect(ticker.keySet.has('chat.padding')).toBe(true);
    expect(ticker.keySet.has('badges.show')).toBe(true);
    expect(ticker.keys).toEqual(SETTINGS.filter((s) => ['chat', 'username', 'message', 'badges'].includes(s.element)).map((s) => s.key));
    expect(Object.keys(ticker.defaults)).toEqual([...ticker.keys]);
  });

  it('ticker layers its own defaults over the catalog', () => {
    expect(ticker.defaults['username.position']).toBe('inline');
    expect(ticker.defaults['message.font-size']).toBe(16);
    expect(ticker.defaults['username.font-size']).toBe(14);
  });

  it('are frozen', () => {
    expect(Object.isFrozen(ticker)).toBe(true);
    expect(Object.isFrozen(ticker.defaults)).toBe(true);
    expect(Object.isFrozen(ticker.keys)).toBe(true);
  });
});

describe('loadTemplates errors', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function withFiles(files: Record<string, string>): string {
    dir = mkdtempSync(path.join(tmpdir(), 'chatskin-templates-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  }

  function errorOf(files: Record<string, string>): string {
    const d = withFiles(files);
    try {
      loadTemplates(d);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('loadTemplates accepted the files');
  }

  const valid = (id: number, slug: string, extra = '') =>
    `id: ${id}\nslug: ${slug}\nname: T${id}\ndescription: test\nelements: [chat, message]\n${extra}`;

  it('loads a minimal template, with defaults optional, and applies normalised defaults', () => {
    const d = withFiles({
      'a.yaml': valid(7, 'mini'),
      'b.yml': valid(3, 'other', 'defaults:\n  message.font-color: "#ABC"\n  message.font-weight: 700\n  message.font-family: open sans\n'),
      'notes.txt': 'ignored',
    });
    const templates = loadTemplates(d);
    expect(templates.map((t) => t.slug)).toEqual(['other', 'mini']);
    expect(templates[0]!.defaults['message.font-color']).toBe('#aabbcc');
    expect(templates[0]!.defaults['message.font-weight']).toBe('700');
    expect(templates[0]!.defaults['message.font-family']).toBe('Open Sans');
  });

  it('names the file, the YAML path and the allowed elements for an unknown element', () => {
    const message = errorOf({ 'bad.yaml': 'id: 1\nslug: bad\nname: Bad\ndescription: x\nelements: [chat, bubbl]\n' });
    expect(message).toContain(`${path.join(dir!, 'bad.yaml')}: elements[1] is "bubbl", which is not an element; allowed: chat, bubble, avatar, username, message, badges.`);
  });

  it('names an unknown default key', () => {
    const message = errorOf({ 'bad.yaml': valid(1, 'bad', 'defaults:\n  message.colour: 1\n') });
    expect(message).toContain('bad.yaml: defaults["message.colour"] is not a known setting key');
  });

  it('names a default for an element the template does not use', () => {
    const message = errorOf({ 'bad.yaml': valid(1, 'bad', 'defaults:\n  bubble.width: 100\n') });
    expect(message).toContain('bad.yaml: defaults["bubble.width"] belongs to the bubble element, which this template does not list in elements.');
  });

  it('names an invalid default value and what is allowed', () => {
    const message = errorOf({ 'bad.yaml': valid(1, 'bad', 'defaults:\n  message.font-size: "16"\n') });
    expect(message).toContain('bad.yaml: defaults["message.font-size"]: The message.font-size must be an integer between 0 and 10000.');
  });

  it('hints at quoting when an unquoted colour became a YAML comment', () => {
    const message = errorOf({ 'bad.yaml': valid(1, 'bad', 'defaults:\n  message.font-color: #fff\n') });
    expect(message).toContain('(quote colours in YAML: "#ff0000")');
  });

  it('refuses duplicate ids and slugs, naming both files', () => {
    const ids = errorOf({ 'a.yaml': valid(1, 'one'), 'b.yaml': valid(1, 'two') });
    expect(ids).toContain(`${path.join(dir!, 'b.yaml')}: id: 1 is already used by ${path.join(dir!, 'a.yaml')}`);
    rmSync(dir!, { recursive: true, force: true });
    const slugs = errorOf({ 'a.yaml': valid(1, 'same'), 'b.yaml': valid(2, 'same') });
    expect(slugs).toContain(`${path.join(dir!, 'b.yaml')}: slug: "same" is already used by ${path.join(dir!, 'a.yaml')}`);
  });

  it('refuses unknown fields and names the allowed ones', () => {
    const message = errorOf({ 'bad.yaml': valid(1, 'bad', 'colour: red\n') });
    expect(message).toContain('bad.yaml: unknown field colour; allowed: id, slug, name, description, elements, defaults.');
  });

  it('checks the type of every field', () => {
    const message = errorOf({ 'bad.yaml': 'id: -1\nslug: Not A Slug\nname: ""\ndescription: 5\nelements: chat\ndefaults: [1]\n' });
    expect(message).toContain('bad.yaml: id must be a positive integer.');
    expect(message).toContain('bad.yaml: slug must be a slug: lowercase letters, digits and single hyphens.');
    expect(message).toContain('bad.yaml: name must be a non-empty string.');
    expect(message).toContain('bad.yaml: description must be a string.');
    expect(message).toContain('bad.yaml: elements must be a list of elements');
    expect(message).toContain('bad.yaml: defaults must be a map of setting key to value');
  });

  it('refuses an element listed twice', () => {
    const message = errorOf({ 'bad.yaml': 'id: 1\nslug: bad\nname: Bad\ndescription: x\nelements: [chat, chat]\n' });
    expect(message).toContain('bad.yaml: elements lists chat more than once.');
  });

  it('reports broken YAML with the file name and position', () => {
    const message = errorOf({ 'bad.yaml': 'id: [1\n' });
    expect(message).toMatch(/bad\.yaml: not valid YAML: .*line 2, column 1/);
    expect(message).not.toContain('\n\n');
  });

  it('refuses a document that is not a mapping', () => {
    expect(errorOf({ 'bad.yaml': '- 1\n- 2\n' })).toContain('bad.yaml: (document) must be a mapping');
    expect(errorOf({ 'bad.yaml': '' })).toContain('bad.yaml: (document) must be a mapping');
  });

  it('lists every problem of every file in one error', () => {
    const message = errorOf({ 'a.yaml': valid(1, 'a', 'defaults:\n  bubble.gap: 1\n'), 'b.yaml': 'id: x\n' });
    expect(message).toContain('a.yaml: defaults["bubble.gap"]');
    expect(message).toContain('b.yaml: id must be a positive integer.');
  });

  it('refuses a folder with no templates', () => {
    expect(errorOf({ 'readme.txt': 'nothing' })).toMatch(/^No templates in .*: add at least one \*\.yaml file\.$/);
  });
});
