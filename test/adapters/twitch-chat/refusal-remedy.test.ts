import { describe, expect, it } from 'vitest';
import { refusalRemedy } from '../../../src/adapters/twitch-chat/refusal-remedy.ts';

const PAUSE = 30_000;

describe('what a Twitch refusal needs for the line to pass when sent again', () => {
  it('slow mode: the wait Twitch names, plus a second for its rounding', () => {
    const notice = 'This room is in slow mode and you are sending messages too quickly. You will be able to talk again in 7 seconds.';
    expect(refusalRemedy('msg_slowmode', notice, PAUSE)).toEqual({ kind: 'wait', ms: 8_000 });
    expect(refusalRemedy('msg_slowmode', 'You will be able to talk again in 1 second.', PAUSE)).toEqual({ kind: 'wait', ms: 2_000 });
    expect(refusalRemedy('msg_slowmode', 'This room is in slow mode.', PAUSE)).toEqual({ kind: 'wait', ms: 30_000 });
  });

  it('the rate limit: the pause the adapter holds every line for', () => {
    expect(refusalRemedy('msg_ratelimit', 'Your message was not sent because you are sending messages too quickly.', 12_345)).toEqual({ kind: 'wait', ms: 12_345 });
  });

  it('a timeout: a wait when short, nothing when long', () => {
    expect(refusalRemedy('msg_timedout', 'You are timed out for 9 more seconds.', PAUSE)).toEqual({ kind: 'wait', ms: 10_000 });
    expect(refusalRemedy('msg_timedout', 'You are timed out for 592 more seconds.', PAUSE)).toEqual({ kind: 'none' });
    expect(refusalRemedy('msg_timedout', 'You are timed out.', PAUSE)).toEqual({ kind: 'none' });
  });

  it('a duplicate: a different text', () => {
    expect(refusalRemedy('msg_duplicate', 'Your message was not sent because it is identical to the previous one you sent, less than 30 seconds ago.', PAUSE))
      .toEqual({ kind: 'differ' });
  });

  it('nothing for refusals that do not pass', () => {
    for (const msgId of ['msg_banned', 'msg_channel_suspended', 'msg_followersonly', 'msg_subsonly', 'msg_emoteonly', 'msg_requires_verified_phone_number', 'msg_verified_email']) {
      expect(refusalRemedy(msgId, 'You are permanently banned from talking in somechannel.', PAUSE), msgId).toEqual({ kind: 'none' });
    }
  });
});
