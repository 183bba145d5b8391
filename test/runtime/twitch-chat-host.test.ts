// The whole host (startChatskin) with the real tmi.js against the fake Twitch chat server:
// chat commands change the overlay (seen through the service and the push socket), roles are
// enforced, cooldowns hold, chatters are registered, chat reaches the overlay, and a dropped
// connection reconnects and rejoins.
import { DatabaseSync } from 'node:sqlite';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { watchDefaultOverlay } from './overlay-socket.ts';
import { twitchHostConfig } from './twitch-host-config.ts';
import { watchedTwitchHostForSuite } from './watched-twitch-host.ts';
import { openService } from '../../src/runtime/open-service.ts';
import { startChatskin } from '../../src/runtime/start-chatskin.ts';
import { FakeTwitchIrc } from '../fakes/fake-twitch-irc.ts';
import { captureLogs } from '../host/log-capture.ts';

const MOD = { login: 'modguy', mod: true };
const VIEWER = { login: 'viewer_one', userId: '1001' };

describe('host with Twitch chat (real tmi.js against the fake server)', () => {
  const world = watchedTwitchHostForSuite('chatskin-host-');

  const width = async () => (await world.running.service.getTemplate(world.running.account.id)).settings_values['bubble.width'];
  const botSaid = (pattern: RegExp, since: number) =>
    world.irc.waitForPrivmsg((m) => m.login === 'chatskinbot' && pattern.test(m.text), { since });

  it("applies a moderator's !style to the overlay: stored, pushed live and answered in chat", async () => {
    const since = world.irc.privmsgs.length;
    const framesBefore = world.overlay.frames.length;
    world.irc.sendPrivmsg('#alice', MOD, '!style bubble.width 300');
    await botSaid(/bubble\.width/, since);
    expect(await width()).toBe(300);
    const update = await world.overlay.waitFor((f) => f.type === 'update', framesBefore);
    expect(update.type === 'update' && update.style.settings['bubble.width']).toBe(300);
  });

  it("refuses a viewer's identical line: nothing changes and the bot says nothing", async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', VIEWER, '!style bubble.width 500');
    // Lines are handled in order: once the moderator's later line is answered, the viewer's was handled.
    world.irc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
    await botSaid(/bubble\.width/, since);
    expect(await width()).toBe(300);
    expect(world.irc.privmsgs.slice(since).filter((m) => m.login === 'chatskinbot')).toHaveLength(1);
  });

  it('answers a validation error in one short line and changes nothing', async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', MOD, '!style bubble.width 99999');
    const reply = await botSaid(/between 0 and 10000/, since);
    expect(reply.text.length).toBeLessThan(200);
    expect(await width()).toBe(300);
  });

  it('registers chatters as viewers and shows their messages on the overlay', async () => {
    const framesBefore = world.overlay.frames.length;
    world.irc.sendPrivmsg('#alice', VIEWER, 'hello <b>chat</b>');
    const chat = await world.overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.text === 'hello <b>chat</b>', framesBefore);
    expect(chat.type === 'chat' && chat.event.type === 'message' && chat.event.userId).toBe('1001');
    await expect.poll(async () => (await world.running.service.findViewer('viewer_one'))?.twitchUserId).toBe('1001');
  });

  it('registers a chatter again after a rename or a new display name, and never one whose user id is unusable', async () => {
    world.irc.sendPrivmsg('#alice', { login: 'viewer_uno', displayName: 'Viewer_Uno', userId: '1001' }, 'new name, same me');
    await expect.poll(async () => (await world.running.service.findViewer('1001'))?.twitchUsername).toBe('viewer_uno');
    expect(await world.running.service.findViewer('viewer_one')).toBeNull();
    world.irc.sendPrivmsg('#alice', { login: 'viewer_uno', displayName: 'VIEWER_UNO', userId: '1001' }, 'new display name');
    await expect.poll(async () => (await world.running.service.findViewer('1001'))?.displayName).toBe('VIEWER_UNO');

    const framesBefore = world.overlay.frames.length;
    world.irc.sendPrivmsg('#alice', { login: 'odd_one', userId: 'not-a-number' }, 'hello from an odd id');
    // Shown on the overlay all the same; lines are handled in order, so once a later chatter is
    // registered, the odd one's line was handled too.
    await world.overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.text === 'hello from an odd id', framesBefore);
    world.irc.sendPrivmsg('#alice', { login: 'after_odd', userId: '1003' }, 'after it');
    await expect.poll(async () => (await world.running.service.findViewer('after_odd'))?.twitchUserId).toBe('1003');
    expect(await world.running.service.findViewer('odd_one')).toBeNull();
  });

  // !skins also has a 3 s global cooldown, so this holds with per-user cooldowns broken too;
  // twitch-chat-commands.test.ts checks each kind on its own.
  it('answers a viewer spamming !skins once, with at most one cooling-down notice', async () => {
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', VIEWER, '!skins');
    world.irc.sendPrivmsg('#alice', VIEWER, '!skins');
    world.irc.sendPrivmsg('#alice', VIEWER, '!skins');
    world.irc.sendPrivmsg('#alice', MOD, '!style show bubble.width');
    await botSaid(/bubble\.width/, since);
    const toViewer = world.irc.privmsgs.slice(since).filter((m) => m.login === 'chatskinbot' && /viewer_one/i.test(m.text));
    // One answer, plus at most one "cooling down" notice, never one per line.
    expect(toViewer.length).toBeGreaterThanOrEqual(1);
    expect(toViewer.length).toBeLessThanOrEqual(2);
  });

  it('reconnects and rejoins after the connection drops, and commands work again', async () => {
    const joins = world.irc.joins.length;
    world.irc.dropAllConnections();
    await world.irc.waitForJoin('alice', { since: joins });
    const since = world.irc.privmsgs.length;
    world.irc.sendPrivmsg('#alice', MOD, '!style bubble.width 320');
    await botSaid(/bubble\.width/, since);
    expect(await width()).toBe(320);
  });
});

describe('host with Twitch chat: a graceful stop', () => {
  it('still registers the chatters it saw just before the stop', async () => {
    const irc = await FakeTwitchIrc.start();
    try {
      const config = twitchHostConfig(irc, 'chatskin-host-stop-');
      const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
      await irc.waitForJoin('alice');
      const overlay = await watchDefaultOverlay(running);
      const latecomers = [{ login: 'late_one', userId: '2001' }, { login: 'late_two', userId: '2002' }];
      for (const chatter of latecomers) irc.sendPrivmsg('#alice', chatter, 'just got here');
      // Both lines were handled once the overlay shows them; the stop comes at once after.
      await overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.userId === '2002');
      overlay.socket.close();
      await running.close();

      const reopened = await openService(config);
      try {
        for (const chatter of latecomers) expect((await reopened.service.findViewer(chatter.login))?.twitchUserId).toBe(chatter.userId);
      } finally {
        await reopened.close();
      }
    } finally {
      await irc.close();
    }
  });
});

describe('host with Twitch chat: a chatter whose registration failed', () => {
  it('is registered on their next line, not forgotten until a rename or a restart', async () => {
    const irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(irc, 'chatskin-host-retry-');
    const { logger, entries } = captureLogs();
    const running = await startChatskin(config, { logger, stdin: null });
    // A second connection to the same database makes inserting this one viewer fail, the way a
    // passing database fault would, and then lets it through again.
    const db = new DatabaseSync(config.store.path);
    try {
      await irc.waitForJoin('alice');
      db.exec(`CREATE TRIGGER fail_viewer_3001 BEFORE INSERT ON viewers WHEN NEW.twitch_user_id = '3001'
        BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      const chatter = { login: 'unlucky', userId: '3001' };
      irc.sendPrivmsg('#alice', chatter, 'first line');
      await expect.poll(() => entries.some((e) => e.msg === 'registering a chatter as a viewer failed' && e.login === 'unlucky'),
        { timeout: 5000 }).toBe(true);
      expect(await running.service.findViewer('3001')).toBeNull();

      db.exec('DROP TRIGGER fail_viewer_3001');
      irc.sendPrivmsg('#alice', chatter, 'second line');
      await expect.poll(async () => (await running.service.findViewer('3001'))?.twitchUsername, { timeout: 5000 }).toBe('unlucky');
    } finally {
      db.close();
      await running.close();
      await irc.close();
    }
  });
});

describe('host with Twitch chat: GET /healthz', () => {
  it('reports the chat connection, each plugin and the redemptions, and a lost connection while still answering ok', async () => {
    const irc = await FakeTwitchIrc.start();
    const config = twitchHostConfig(irc, 'chatskin-host-health-');
    const running = await startChatskin(config, { logger: pino({ level: 'silent' }), stdin: null });
    try {
      await irc.waitForJoin('alice');
      const health = async () => {
        const response = await fetch(`${running.baseUrl}/healthz`);
        expect(response.status).toBe(200);
        return response.json() as Promise<{ status: string; components: Record<string, string> }>;
      };
      expect(await health()).toEqual({
        status: 'ok',
        components: {
          database: 'writable',
          'twitch-chat': 'connected',
          'plugin:style': 'running',
          'plugin:skins': 'running',
          'plugin:grants': 'running',
          redemptions: 'off',
        },
      });
      // The local chat is off here: none of its loopback-only routes is served.
      for (const path of ['/local/chat', '/local/chat/say']) {
        expect((await fetch(`${running.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
      }
      // The fake goes away: the process still serves, and says its chat is trying again.
      await irc.close();
      await expect.poll(async () => (await health()).components['twitch-chat'], { timeout: 5000 }).toBe('reconnecting');
      expect((await health()).status).toBe('ok');
    } finally {
      await running.close();
      await irc.close();
    }
  });

  it('reports a bot token Twitch refuses for good apart from a dropped connection', async () => {
    const irc = await FakeTwitchIrc.start({ rejectTokens: ['testtoken'] });
    const running = await startChatskin(twitchHostConfig(irc, 'chatskin-host-refused-'), { logger: pino({ level: 'silent' }), stdin: null });
    try {
      const state = async () => (((await (await fetch(`${running.baseUrl}/healthz`)).json()) as { components: Record<string, string> }).components['twitch-chat']);
      await expect.poll(state, { timeout: 5000 }).toBe('failed');
      // Found by the token's check at start (id.twitch.tv's /validate), before any login.
      expect(running.transports.twitch!.lastError).toMatch(/^Twitch chat cannot log in: Twitch does not accept twitch\.bot\.token/);
      expect(irc.totalConnections).toBe(0);
    } finally {
      await running.close();
      await irc.close();
    }
  });
});
