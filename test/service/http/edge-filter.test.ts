import { describe, expect, it } from 'vitest';
import { isBlockedAgent } from '../../../src/service/http/edge-filter.ts';
import { DEFAULT_BLOCKED_AGENTS } from '../../../src/service/http/options.ts';

describe('isBlockedAgent with the default list', () => {
  it.each([
    undefined, '', '   ', 'curl/8.5.0', 'Wget/1.21', 'python-requests/2.31.0', 'Python-urllib/3.12',
    'Go-http-client/1.1', 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'axios/1.6.0',
    'okhttp/4.12.0', 'Java/17.0.2', 'libwww-perl/6.72', 'Scrapy/2.11 (+https://scrapy.org)', 'node', 'undici', 'NODE',
  ])('blocks %j', (agent) => {
    expect(isBlockedAgent(agent, DEFAULT_BLOCKED_AGENTS)).toBe(true);
  });

  it.each(['MyTool/1.0', 'StreamDeckPlugin/2.3 (+https://example.com)', 'nodebot/1.0', 'undici-tool/2', 'curlish/1'])(
    'lets %j through', (agent) => {
      expect(isBlockedAgent(agent, DEFAULT_BLOCKED_AGENTS)).toBe(false);
    },
  );

  it('uses the configured list instead of the default', () => {
    expect(isBlockedAgent('curl/8.5.0', ['BadBot/'])).toBe(false);
    expect(isBlockedAgent('badbot/3', ['BadBot/'])).toBe(true);
    expect(isBlockedAgent('', [])).toBe(true);
  });
});
