// docs/plugins.md's snippet that signs a redemption's viewer in (Redemption handlers), put in a
// plugin whose handler then names the viewer to the service: run by plugin-helpers-docs.test.ts,
// type-checked by plugin-typecheck-docs.test.ts.
import { section } from './docs-section.ts';

/** The plugin's source; `sdk` is the SDK's import path as written (quoted). */
export function signInPlugin(doc: string, sdk: string): string {
  const snippet = /```ts\n(const \{ id: twitchUserId, login, displayName \} = redemption\.user;\n[\s\S]*?)```/
    .exec(section(doc, '## Redemption handlers'))?.[1];
  if (snippet === undefined) throw new Error('docs/plugins.md, Redemption handlers: no registerViewer snippet');
  return `import { definePlugin, isOverlayStyleError } from ${sdk};

export default definePlugin({
  name: 'sign-in',
  setup(ctx) {
    ctx.onRedemption('skins-count', async (redemption) => {
      if (redemption.input === 'sign in') {
${snippet.replace(/^/gm, '        ')}
      }
      const held = await ctx.overlay.listViewerSkins(redemption.user.login);
      return { outcome: 'fulfill', reply: \`you hold \${held.length} skins.\` };
    });
  },
});
`;
}

