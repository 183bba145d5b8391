// The config keys for redemptions: optional sections with defaults filled by redemptionSettings,
// and errors that name the key and what it allows.
import { describe, expect, it } from 'vitest';
import { redemptionSettings } from '../../src/config/config-schema.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';

const TWITCH = { clientId: 'i', clientSecret: 's', bot: { login: 'b', token: 't' } };

function issuesOf(input: Record<string, unknown>): Array<{ path: string; message: string }> {
  try {
    parseConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('redemption config', () => {
  it('defaults: token file, Twitch\'s OAuth, on, every 60 s, settled redemptions kept 30 days, no rewards', () => {
    const config = parseConfig({ twitch: TWITCH });
    if (!config.twitch.enabled) throw new Error('expected twitch on');
    expect(redemptionSettings(config.twitch)).toEqual({
      broadcaster: { tokenFile: './data/twitch-broadcaster-token.json' },
      oauth: { url: null },
      redemptions: { enabled: true, reconcileIntervalSeconds: 60, ledgerRetentionDays: 30, tokenFileCheckSeconds: 5 },
      rewards: {},
    });
  });

  it('a reward takes its defaults, and a colour is stored uppercase', () => {
    const config = parseConfig({ twitch: { ...TWITCH, rewards: { 'unlock-neon': { title: 'Neon', cost: 500, backgroundColor: '#00ff88' } } } });
    if (!config.twitch.enabled) throw new Error('expected twitch on');
    expect(redemptionSettings(config.twitch).rewards).toEqual({
      'unlock-neon': {
        title: 'Neon', cost: 500, prompt: '', backgroundColor: '#00FF88', userInputRequired: false, enabled: true, paused: false,
        globalCooldownSeconds: null, maxPerStream: null, maxPerUserPerStream: null,
      },
    });
  });

  it('names the key and what it allows', () => {
    const issues = issuesOf({
      twitch: {
        ...TWITCH,
        rewards: {
          'unlock-neon': { title: 'x'.repeat(46), cost: 0, backgroundColor: 'pink', colour: 'x' },
          'bad key!': { title: 'Ok', cost: 1 },
        },
        redemptions: { reconcileIntervalSeconds: 1 },
      },
    });
    expect(issues).toEqual(expect.arrayContaining([
      { path: 'twitch.rewards.unlock-neon.title', message: expect.stringMatching(/^must be at most 45 characters \(a Twitch limit\)/) },
      { path: 'twitch.rewards.unlock-neon.cost', message: expect.stringMatching(/^must be a whole number from 1 to 2147483647/) },
      { path: 'twitch.rewards.unlock-neon.backgroundColor', message: expect.stringMatching(/^must be a colour such as "#9147FF"/) },
      { path: 'twitch.rewards.unlock-neon', message: expect.stringMatching(/^unknown key "colour"; allowed keys: title, cost, prompt/) },
      { path: 'twitch.redemptions.reconcileIntervalSeconds', message: expect.stringMatching(/^must be a whole number from 10 to 86400/) },
    ]));
    expect(issues.some((issue) => issue.path.startsWith('twitch.rewards') && /reward keys are 1 to 100 letters/.test(issue.message))).toBe(true);
  });

  it('tokenFileCheckSeconds: a whole number of seconds from 1 to 3600, 5 by default', () => {
    const checkSeconds = (input: unknown): number => {
      const config = parseConfig({ twitch: input });
      if (!config.twitch.enabled) throw new Error('expected twitch on');
      return redemptionSettings(config.twitch).redemptions.tokenFileCheckSeconds;
    };
    expect(checkSeconds(TWITCH)).toBe(5);
    expect(checkSeconds({ ...TWITCH, redemptions: { tokenFileCheckSeconds: 60 } })).toBe(60);
    for (const bad of [0, 1.5, 3601, '5']) {
      expect(issuesOf({ twitch: { ...TWITCH, redemptions: { tokenFileCheckSeconds: bad } } })).toEqual([
        { path: 'twitch.redemptions.tokenFileCheckSeconds', message: expect.stringMatching(/^must be a whole number from 1 to 3600/) },
      ]);
    }
  });

  it('ledgerRetentionDays: a whole number of days from 1 to 3650', () => {
    const config = parseConfig({ twitch: { ...TWITCH, redemptions: { ledgerRetentionDays: 1 } } });
    if (!config.twitch.enabled) throw new Error('expected twitch on');
    expect(redemptionSettings(config.twitch).redemptions.ledgerRetentionDays).toBe(1);
    for (const bad of [0, -5, 1.5, 3651, '30', null]) {
      expect(issuesOf({ twitch: { ...TWITCH, redemptions: { ledgerRetentionDays: bad } } })).toEqual([
        { path: 'twitch.redemptions.ledgerRetentionDays', message: expect.stringMatching(/^must be a whole number from 1 to 3650/) },
      ]);
    }
  });

  it('leaves a config without these keys parsing as before', () => {
    const config = parseConfig({ twitch: TWITCH });
    expect(Object.keys(config.twitch).filter((key) => ['broadcaster', 'oauth', 'redemptions', 'rewards'].includes(key)
      && (config.twitch as Record<string, unknown>)[key] !== undefined)).toEqual([]);
  });
});
