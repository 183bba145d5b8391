// `chatskin twitch auth` with Twitch off in the config in use: one line naming that file and what
// to change there, for each way it can be off, before anything is asked of Twitch.
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULT_PATH } from '../../src/config/index.ts';
import { runCli, tempWorkspace } from './cli-process.ts';

const STEPS = ', then run this again (docs/twitch-setup.md has the steps).';
const BOT_ADVICE = `twitch.bot (its login and tokenFile, as in ${CONFIG_DEFAULT_PATH})`;
/** No variable the config could read, and no CHATSKIN_CONFIG: the child sees only what the test gives. */
const CLEAN_ENV = { CHATSKIN_CONFIG: undefined, TWITCH_CLIENT_ID: undefined, TWITCH_CLIENT_SECRET: undefined, NO_SUCH_SECRET: undefined };

async function auth(extraYaml: string, args: string[] = []): Promise<{ config: string; result: Awaited<ReturnType<typeof runCli>> }> {
  const { dir, config } = tempWorkspace(extraYaml);
  return { config, result: await runCli(['twitch', 'auth', ...args, '--config', config], { cwd: dir, env: CLEAN_ENV }) };
}

describe('chatskin twitch auth with Twitch off', () => {
  it('twitch.enabled: false with the credentials there: says to set twitch.enabled: true, in that file', async () => {
    const { config, result } = await auth('twitch: { enabled: false, clientId: abc, clientSecret: def, bot: { login: mybot, tokenFile: bot.json } }');
    expect(result).toEqual({
      code: 1, stdout: '',
      stderr: `chatskin: Twitch is switched off in ${config} (twitch.enabled: false): set twitch.enabled: true there${STEPS}\n`,
    });
  });

  it('twitch.enabled: false without credentials: says to switch it on and add them (--bot alike)', async () => {
    const { config, result } = await auth('twitch: { enabled: false, clientId: abc, bot: { login: mybot, tokenFile: bot.json } }', ['--bot']);
    expect(result.stderr).toBe(`chatskin: Twitch is switched off in ${config} (twitch.enabled: false):`
      + ` set twitch.enabled: true and add twitch.clientSecret there${STEPS}\n`);
    expect(result.code).toBe(1);
  });

  it('a blank credential counts as missing', async () => {
    const { config, result } = await auth('twitch: { enabled: false, clientId: "  ", clientSecret: def, bot: { login: mybot, tokenFile: bot.json } }');
    expect(result.stderr).toBe(`chatskin: Twitch is switched off in ${config} (twitch.enabled: false):`
      + ` set twitch.enabled: true and add twitch.clientId there${STEPS}\n`);
  });

  it('credentials from environment variables that are not set: names them', async () => {
    const { config, result } = await auth('twitch: { enabled: false, clientId: abc, clientSecret: "${NO_SUCH_SECRET}", bot: { login: mybot, tokenFile: bot.json } }');
    expect(result.stderr).toBe(`chatskin: Twitch is switched off in ${config} (twitch.enabled: false): set twitch.enabled: true there,`
      + ` and set the environment variable NO_SUCH_SECRET (twitch.clientSecret reads it)${STEPS}\n`);
  });

  // An enabled section without twitch.bot is refused by the config check: advice without it led there.
  it('no twitch section: says to add the credentials and the bot', async () => {
    const { config, result } = await auth('');
    expect(result.stderr).toBe(`chatskin: ${config} has no twitch section: add twitch.clientId, twitch.clientSecret and ${BOT_ADVICE} there${STEPS}\n`);
  });

  it('twitch.enabled: false without twitch.bot: says to add it', async () => {
    const { config, result } = await auth('twitch: { enabled: false, clientId: abc, clientSecret: def }');
    expect(result.stderr).toBe(`chatskin: Twitch is switched off in ${config} (twitch.enabled: false): set twitch.enabled: true and add ${BOT_ADVICE} there${STEPS}\n`);
  });

  it('the shipped config (its credentials there, from the environment): says to switch it on in a config of one\'s own', async () => {
    const result = await runCli(['twitch', 'auth'], { env: CLEAN_ENV });
    expect(result).toEqual({
      code: 1, stdout: '',
      stderr: `chatskin: Twitch is switched off in ${CONFIG_DEFAULT_PATH} (twitch.enabled: false): set twitch.enabled: true`
        + ' in a config file of your own (a copy of that one), passed with --config FILE, and set the environment variables'
        + ` TWITCH_CLIENT_ID and TWITCH_CLIENT_SECRET (twitch.clientId and twitch.clientSecret read them)${STEPS}\n`,
    });
  });
});
