// An example plugin (docs/plugins.md): `!roll [sides]` (alias `!dice`) rolls a die, and the
// channel-point reward "lucky-roll" rolls a d20 in chat. Disabled in config/default.yaml.
import { randomInt } from 'node:crypto';
import { definePlugin, z } from '../../src/sdk.ts';

export default definePlugin({
  name: 'example-dice',
  // strictObject: a misspelt setting is an error rather than ignored.
  config: z.strictObject({
    /** The largest die a chatter may roll. */
    maxSides: z.number().int().min(2).max(1000).default(100),
    /** The die `!roll` rolls when no size is given. */
    defaultSides: z.number().int().min(2).max(1000).default(6),
  }).refine((settings) => settings.defaultSides <= settings.maxSides, {
    message: 'defaultSides must not be above maxSides',
    path: ['defaultSides'],
  }),

  setup(ctx) {
    const { maxSides, defaultSides } = ctx.config;

    ctx.command({
      name: 'roll',
      aliases: ['dice'],
      description: 'Rolls a die: !roll [sides]',
      args: [{ name: 'sides', type: 'integer', optional: true, min: 2, max: maxSides }],
      cooldown: { user: 10 },
      async run({ args, user, reply }) {
        const sides = args.sides ?? defaultSides;
        const rolled = randomInt(1, sides + 1);
        ctx.logger.debug({ user: user.login, sides, rolled }, 'rolled');
        await reply(`rolled ${rolled} (d${sides})`);
      },
    });

    ctx.onRedemption('lucky-roll', async (redemption) => {
      const rolled = randomInt(1, 21);
      const outcome = await ctx.chat.say(redemption.channel,
        `${redemption.user.displayName} rolls the lucky d20: ${rolled}${rolled === 20 ? ' - critical!' : ''}`);
      // Points back when the roll could not be shown.
      return outcome.status === 'sent' ? 'fulfill' : 'refund';
    });
  },
});
