// docs/plugins.md "Type-checking a plugin", followed as written: a plugin and its test in a folder
// outside the repository, its package.json and tsconfig.json taken from the docs, checked by the
// repository's own tsc. Each part of the recipe is needed, and each error is the one the docs say.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { section } from './docs-section.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const PLUGINS_DOC = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');
const RECIPE = section(PLUGINS_DOC, '## Type-checking a plugin');

/** The docs' `/opt/...` paths made this machine's: chatskin is this repository, the plugins' folder a temporary one. */
function here(text: string, dir: string): string {
  return text.replaceAll('/opt/chatskin', ROOT).replaceAll('/opt/my-plugins', dir);
}

/** The recipe's files, by name: each `/opt/my-plugins/<file>` followed by its json block. */
function recipeFiles(): Map<string, string> {
  const files = new Map([...RECIPE.matchAll(/^`\/opt\/my-plugins\/([\w.]+)`(?:(?!```)[\s\S])*?\n\n```json\n([\s\S]*?)```/gm)]
    .map(([, name, text]) => [name!, text!]));
  expect([...files.keys()].sort()).toEqual(['package.json', 'tsconfig.json']);
  return files;
}

/** The recipe's command, run from the chatskin folder with the Node that runs these tests. */
async function typeCheck(dir: string): Promise<{ code: number; output: string }> {
  const command = /```sh\n(node_modules\/\.bin\/tsc -p \/opt\/my-plugins)\n```/.exec(RECIPE)?.[1];
  expect(command).toBeDefined();
  const [tsc, ...args] = here(command!, dir).split(' ');
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, tsc!), ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: stdout + stderr });
    });
  });
}

/** What the docs quote tsc saying, after `words`. */
function quoted(words: string): string {
  const said = new RegExp(`${words}\\s+\`([^\`]+)\``).exec(RECIPE)?.[1];
  expect(said, words).toBeDefined();
  return said!.replace(/\s+/g, ' ');
}

// Written as the docs say: the SDK and the test helpers imported by their paths.
const PLUGIN = `import { randomInt } from 'node:crypto';
import { definePlugin, z } from '/opt/chatskin/src/sdk.ts';

export default definePlugin({
  name: 'my-dice',
  config: z.strictObject({ sides: z.number().int().min(2).max(100).default(6) }),
  setup(ctx) {
    ctx.command({
      name: 'roll',
      args: [{ name: 'sides', type: 'integer', optional: true, min: 2, max: 100 }],
      async run({ args, reply }) {
        await reply(\`rolled \${randomInt(1, (args.sides ?? ctx.config.sides) + 1)}\`);
      },
    });
  },
});
`;
const PLUGIN_TEST = `import { expect, it } from 'vitest';
import { startTestHost } from '/opt/chatskin/test/host/host-fixture.ts';
import { viewerTags } from '/opt/chatskin/test/host/irc-tags.ts';
import { settle } from '/opt/chatskin/test/host/manual-clock.ts';

it('rolls within the sides asked for', async () => {
  const test = await startTestHost({ config: { pluginDirs: ['/opt/my-plugins'], plugins: { 'my-dice': {} } } });
  test.chat.message('#streamer', '!roll 2', viewerTags('ann'));
  await settle();
  expect(test.said()).toEqual([expect.stringMatching(/^@Ann rolled [12]$/)]);
});
`;

describe('docs/plugins.md, Type-checking a plugin (kept outside the repository)', () => {
  const files = recipeFiles();
  const dir = mkdtempSync(join(tmpdir(), 'chatskin-my-plugins-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), here(text, dir));
  };
  const writeRecipe = () => { for (const [name, text] of files) write(name, text); };

  it('is outside the repository', () => {
    expect(dir.startsWith(`${ROOT}/`)).toBe(false);
  });

  it('checks a plugin, its test and the docs\' answerInChat plugin without an error', async () => {
    writeRecipe();
    for (const text of files.values()) expect(() => JSON.parse(text) as unknown).not.toThrow();
    write('my-dice/index.ts', PLUGIN);
    write('my-dice/index.test.ts', PLUGIN_TEST);
    const answering = /```ts\n(import \{[^\n]*\} from '\.\.\/\.\.\/src\/sdk\.ts';\n\nexport default definePlugin\(\{\n  name: 'bubble-width'[\s\S]*?)```/
      .exec(section(PLUGINS_DOC, '## Answering in one line: `answerInChat`'))?.[1];
    expect(answering).toBeDefined();
    write('bubble-width/index.ts', answering!.replace("'../../src/sdk.ts'", "'/opt/chatskin/src/sdk.ts'"));
    expect(await typeCheck(dir)).toEqual({ code: 0, output: '' });
  });

  it('reports a type error in the plugin as the docs show it', async () => {
    write('my-dice/index.ts', PLUGIN.replace('ctx.config.sides', 'ctx.config.side'));
    const { code, output } = await typeCheck(dir);
    expect(code).toBe(1);
    const place = /`(\.\.\/my-plugins\/my-dice\/index\.ts\(\d+,\d+\))`/.exec(RECIPE)?.[1];
    expect(place).toBeDefined();
    expect(output).toContain(place!.replace('../my-plugins', relative(ROOT, dir)));
    expect(output.replace(/\s+/g, ' ')).toContain(quoted('as'));
    write('my-dice/index.ts', PLUGIN);
  });

  it('needs each part of the recipe: without it, tsc says what the docs say', async () => {
    const tsconfig = JSON.parse(files.get('tsconfig.json')!) as { compilerOptions: Record<string, unknown> };
    const without = async (option: 'typeRoots' | 'paths') => {
      const { [option]: _left, ...rest } = tsconfig.compilerOptions;
      write('tsconfig.json', JSON.stringify({ ...tsconfig, compilerOptions: rest }));
      const result = await typeCheck(dir);
      writeRecipe();
      return result;
    };
    const noTypeRoots = await without('typeRoots');
    expect(noTypeRoots.code).toBe(1);
    expect(noTypeRoots.output).toContain(quoted('Without `typeRoots` it says'));
    const noPaths = await without('paths');
    expect(noPaths.code).toBe(1);
    expect(noPaths.output).toContain(quoted('without `paths`,'));
    rmSync(join(dir, 'package.json'));
    const noPackage = await typeCheck(dir);
    writeRecipe();
    expect(noPackage.code).toBe(1);
    expect(noPackage.output).toContain(quoted('without the `package.json`,'));
    expect(await typeCheck(dir)).toEqual({ code: 0, output: '' });
  });
});
