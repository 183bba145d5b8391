// A plugin whose redemption handler names the viewer who redeemed to the overlay service (it lists
// their skins): refused (404) for a viewer the service does not know, so it shows whether the
// host signed that viewer in before the handler ran. For createPluginFolders().add('skins-count', ...).
export const SKINS_COUNT_PLUGIN = `import { definePlugin } from SDK;

export default definePlugin({
  name: 'skins-count',
  setup(ctx) {
    ctx.onRedemption('skins-count', async (redemption) => {
      const held = await ctx.overlay.listViewerSkins(redemption.user.login);
      return { outcome: 'fulfill', reply: \`you hold \${held.length} skins.\` };
    });
  },
});
`;
