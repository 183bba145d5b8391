// Moderation in Twitch chat reaches the overlay's push socket, through the whole host with the
// real tmi.js against the fake server: a deleted message (CLEARMSG), a timeout or a ban (CLEARCHAT
// naming a user) and a cleared chat (CLEARCHAT alone) each become the one chat event docs/push.md
// describes, so the page takes the removed text off stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchDefaultOverlay } from './overlay-socket.ts';
import type { OverlaySocket } from './overlay-socket.ts';
import { twitchHostForSuite } from './twitch-host.ts';
import type { ChatEvent } from '../../src/service/push/protocol.ts';
import type { ChatUser } from '../fakes/fake-twitch-irc.ts';

const VIEWER: ChatUser = { login: 'viewer_one', userId: '1001' };
const OTHER: ChatUser = { login: 'viewer_two', userId: '1002' };

describe('moderation in Twitch chat reaches the overlay (real tmi.js against the fake server)', () => {
  const world = twitchHostForSuite({ dirPrefix: 'chatskin-moderation-' });
  let overlay: OverlaySocket;
  let markers = 0;

  beforeAll(async () => {
    const { running } = world;
    overlay = await watchDefaultOverlay(running);
  });

  afterAll(() => {
    overlay?.socket.close();
  });

  /** Sends a chat line and waits until the overlay shows it. */
  const shown = async (user: ChatUser, text: string): Promise<string> => {
    const { id } = world.irc.sendPrivmsg('#alice', user, text);
    await overlay.waitFor((f) => f.type === 'chat' && f.event.type === 'message' && f.event.id === id);
    return id;
  };

  /**
   * The chat events other than messages pushed from frame `from` on, once a later chat line is
   * shown: Twitch's lines are handled and pushed in order, so by then every earlier one was.
   */
  const removalsSince = async (from: number): Promise<ChatEvent[]> => {
    markers += 1;
    await shown(OTHER, `marker ${markers}`);
    return overlay.frames.slice(from).flatMap((f) => (f.type === 'chat' && f.event.type !== 'message' ? [f.event] : []));
  };

  it('pushes a deleted message (CLEARMSG) as message-deleted with its id', async () => {
    const id = await shown(VIEWER, 'something to delete');
    const from = overlay.frames.length;
    world.irc.deleteMessage('#alice', { login: VIEWER.login, targetMsgId: id, text: 'something to delete' });
    expect(await removalsSince(from)).toEqual([{ type: 'message-deleted', messageId: id }]);
  });

  it("pushes a timeout (CLEARCHAT naming a user, with a duration) as user-cleared with the user's id", async () => {
    await shown(VIEWER, 'about to be timed out');
    const from = overlay.frames.length;
    world.irc.timeoutUser('#alice', VIEWER, 600);
    expect(await removalsSince(from)).toEqual([{ type: 'user-cleared', userId: '1001' }]);
  });

  it("pushes a ban (CLEARCHAT naming a user, no duration) as user-cleared with the user's id", async () => {
    await shown(VIEWER, 'about to be banned');
    const from = overlay.frames.length;
    world.irc.banUser('#alice', VIEWER);
    expect(await removalsSince(from)).toEqual([{ type: 'user-cleared', userId: '1001' }]);
  });

  it('pushes a cleared chat (CLEARCHAT alone) as chat-cleared', async () => {
    await shown(VIEWER, 'about to be cleared');
    const from = overlay.frames.length;
    world.irc.clearChat('#alice');
    expect(await removalsSince(from)).toEqual([{ type: 'chat-cleared' }]);
  });
});
