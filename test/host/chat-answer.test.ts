import { describe, expect, it } from 'vitest';
import { OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { answerInChat, ChatRefusal } from '../../src/host/chat-answer.ts';

function recorder() {
  const replies: string[] = [];
  const warnings: string[] = [];
  return {
    replies, warnings,
    call: { reply: async (line: string) => { replies.push(line); return { status: 'sent' as const, parts: 1 }; } },
    logger: { warn: (_obj: object, msg: string) => { warnings.push(msg); } },
  };
}

describe('answerInChat', () => {
  it("replies with the work's line", async () => {
    const r = recorder();
    await answerInChat(r.call, async () => 'done.', { logger: r.logger });
    expect(r.replies).toEqual(['done.']);
  });

  it('replies with a refusal and logs nothing', async () => {
    const r = recorder();
    await answerInChat(r.call, async () => { throw new ChatRefusal('you cannot.'); }, { logger: r.logger });
    expect(r.replies).toEqual(['you cannot.']);
    expect(r.warnings).toEqual([]);
  });

  it("gives a caller's error (422) as its first field error, without a warning", async () => {
    const r = recorder();
    const error = new OverlayStyleError({ status: 422, message: 'x', errors: { 'values.bubble.width': ['The bubble.width must be an integer between 0 and 10000.'] } });
    await answerInChat(r.call, async () => { throw error; }, { logger: r.logger });
    expect(r.replies[0]).toMatch(/bubble\.width must be an integer between 0 and 10000/);
    expect(r.warnings).toEqual([]);
  });

  it("logs the service's own failures (5xx) and still answers one line", async () => {
    const r = recorder();
    await answerInChat(r.call, async () => { throw new OverlayStyleError({ status: 503, message: 'down' }); }, { logger: r.logger });
    expect(r.replies).toHaveLength(1);
    expect(r.warnings).toEqual(['overlay service call failed']);
  });

  it.each([
    [401, 'Unauthenticated.'],
    [403, 'An active premium subscription is required to use the API.'],
  ])('logs a %i (the bot\'s key or access: only the streamer can mend it), with the command', async (status, message) => {
    const r = recorder();
    const details: object[] = [];
    const logger = { warn: (obj: object, msg: string) => { details.push(obj); r.logger.warn(obj, msg); } };
    await answerInChat({ ...r.call, command: 'style' }, async () => { throw new OverlayStyleError({ status, message }); }, { logger });
    expect(r.replies).toHaveLength(1);
    expect(r.warnings).toEqual(['overlay service call failed']);
    expect(details[0]).toMatchObject({ command: 'style' });
  });

  it("uses the plugin's own line where it has one", async () => {
    const r = recorder();
    await answerInChat(r.call, async () => { throw new OverlayStyleError({ status: 404, message: 'x' }); }, {
      logger: r.logger, describe: (e) => (e.status === 404 ? 'no such thing.' : undefined),
    });
    expect(r.replies).toEqual(['no such thing.']);
  });

  it('lets other errors propagate so the host reports the command as failed', async () => {
    const r = recorder();
    await expect(answerInChat(r.call, async () => { throw new TypeError('bug'); }, { logger: r.logger })).rejects.toThrow('bug');
    expect(r.replies).toEqual([]);
  });
});
