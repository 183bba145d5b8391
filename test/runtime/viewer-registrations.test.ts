// One sign-in for chatters and for the viewers who redeem (src/runtime/viewer-registrations.ts): the same
// filter (new or renamed only) and queue, and a failure that is logged, never thrown, and tried
// again the next time.
import { describe, expect, it } from 'vitest';
import type { ViewerSignIn } from '../../src/service/operations/viewer-admin.ts';
import type { ChatTransportEvent } from '../../src/host/index.ts';
import { createViewerRegistrations } from '../../src/runtime/viewer-registrations.ts';
import type { Viewer } from '../../src/service/types.ts';
import { captureLogs, LEVEL } from '../host/log-capture.ts';

function fakeService(fail: () => boolean = () => false) {
  const sent: ViewerSignIn[][] = [];
  return {
    sent,
    registerViewers: async (viewers: readonly ViewerSignIn[]): Promise<Array<PromiseSettledResult<Viewer>>> => {
      sent.push([...viewers]);
      return viewers.map((viewer) => (fail()
        ? { status: 'rejected', reason: new Error(`cannot register ${viewer.login}`) }
        : { status: 'fulfilled', value: {} as Viewer }));
    },
  };
}

const line = (id: string, login: string, displayName: string): ChatTransportEvent => ({
  type: 'message', channel: 'streamer', text: 'hi', self: false,
  tags: { 'user-id': id, username: login, 'display-name': displayName },
} as ChatTransportEvent);

describe('createViewerRegistrations', () => {
  it('sends a redeemer at once, and the wait settles once they are registered', async () => {
    const service = fakeService();
    const signIn = createViewerRegistrations({ service, logger: captureLogs().logger });
    const waiting = signIn.redeemer({ id: '5005', login: 'Newbie', displayName: ' Newbie ' });
    expect(waiting).toBeDefined();
    await waiting;
    // Normalized as a chat line's tags are.
    expect(service.sent).toEqual([[{ twitchUserId: '5005', login: 'newbie', displayName: 'Newbie' }]]);
    await signIn.stop();
  });

  it('shares the filter with chat lines: a chatter seen is not sent again, a renamed one is', async () => {
    const service = fakeService();
    const signIn = createViewerRegistrations({ service, logger: captureLogs().logger });
    signIn.chatLine(line('42', 'alice', 'Alice'));
    await signIn.registeredFor('42');
    expect(service.sent).toHaveLength(1);
    expect(signIn.redeemer({ id: '42', login: 'alice', displayName: 'Alice' })).toBeUndefined();
    expect(service.sent).toHaveLength(1);
    await signIn.redeemer({ id: '42', login: 'alice_2', displayName: 'Alice_2' });
    expect(service.sent.at(-1)).toEqual([{ twitchUserId: '42', login: 'alice_2', displayName: 'Alice_2' }]);
    // And the chat line under the new name is not sent again.
    signIn.chatLine(line('42', 'alice_2', 'Alice_2'));
    expect(signIn.registeredFor('42')).toBeUndefined();
    await signIn.stop();
    expect(service.sent).toHaveLength(2);
  });

  it('logs a failed registration without rejecting, and tries again on the next redemption', async () => {
    let failing = true;
    const service = fakeService(() => failing);
    const captured = captureLogs();
    const signIn = createViewerRegistrations({ service, logger: captured.logger });
    await expect(signIn.redeemer({ id: '5005', login: 'newbie', displayName: 'Newbie' })).resolves.toBeUndefined();
    expect(captured.entries.filter((entry) => entry.level >= LEVEL.warn).map((entry) => entry.msg))
      .toEqual(['registering a chatter as a viewer failed']);
    failing = false;
    await signIn.redeemer({ id: '5005', login: 'newbie', displayName: 'Newbie' });
    expect(service.sent).toHaveLength(2);
    await signIn.stop();
  });

  it('sends nothing for an unusable user id, and has nothing to wait for', async () => {
    const service = fakeService();
    const signIn = createViewerRegistrations({ service, logger: captureLogs().logger });
    expect(signIn.redeemer({ id: 'not-a-number', login: 'newbie', displayName: 'Newbie' })).toBeUndefined();
    await signIn.stop();
    expect(service.sent).toEqual([]);
  });
});
