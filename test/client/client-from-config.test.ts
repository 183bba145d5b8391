import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createOverlayClientFromConfig, overlayClientConfigSchema } from '../../src/client/client-from-config.ts';
import type { OverlayClientConfig } from '../../src/client/client-from-config.ts';
import { seededService } from './contract-world.ts';

const mockAgent = new MockAgent();
mockAgent.disableNetConnect();

afterEach(() => {
  mockAgent.assertNoPendingInterceptors();
});

describe('createOverlayClientFromConfig', () => {
  it('builds the HTTP client for mode remote, with the configured base URL and key', async () => {
    let authorization: string | undefined;
    mockAgent.get('https://style.example').intercept({ path: '/api/v1/skins' }).reply((opts) => {
      authorization = (opts.headers as Record<string, string>).authorization;
      return { statusCode: 200, data: { data: [] } };
    });
    const client = createOverlayClientFromConfig(
      { mode: 'remote', baseUrl: 'https://style.example/api/v1', apiKey: 'cs_live_abc' },
      { dispatcher: mockAgent },
    );
    await expect(client.listSkins()).resolves.toEqual([]);
    expect(authorization).toBe('Bearer cs_live_abc');
  });

  it('hands the HTTP client the logger, which hears of each wait before a retry', async () => {
    const origin = mockAgent.get('https://style.example');
    origin.intercept({ path: '/api/v1/skins' }).reply(429, { message: 'Too Many Attempts.' }, { headers: { 'retry-after': '0' } });
    origin.intercept({ path: '/api/v1/skins' }).reply(200, { data: [] });
    const warnings: string[] = [];
    const client = createOverlayClientFromConfig(
      { mode: 'remote', baseUrl: 'https://style.example/api/v1', apiKey: 'cs_live_abc' },
      { dispatcher: mockAgent, logger: { warn: (_details, message) => warnings.push(message) } },
    );
    await expect(client.listSkins()).resolves.toEqual([]);
    expect(warnings).toEqual(['overlay service call held up, the service is rate limiting (429): trying again in 0 ms']);
  });

  it('needs the bundled service for mode bundled', () => {
    expect(() => createOverlayClientFromConfig({ mode: 'bundled' })).toThrow(/needs the bundled service/);
  });

  it.each([
    [{ mode: 'remote', apiKey: 'k' }, /baseUrl/],
    [{ mode: 'remote', baseUrl: 'ftp://x.example/api', apiKey: 'k' }, /must use http or https[\s\S]*at baseUrl/],
    [{ mode: 'remote', baseUrl: 'not a url', apiKey: 'k' }, /must be an absolute http\(s\) URL[\s\S]*at baseUrl/],
    [{ mode: 'remote', baseUrl: 'https://user:pw@x.example/api/v1', apiKey: 'k' }, /must not carry credentials[\s\S]*at baseUrl/],
    [{ mode: 'remote', baseUrl: 'https://x.example/api/v1?key=1', apiKey: 'k' }, /must not have a query[\s\S]*at baseUrl/],
    [{ mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'has space' }, /apiKey/],
    [{ mode: 'remote', baseUrl: 'https://x.example/api/v1', apiKey: 'k', maxRetries: 99 }, /maxRetries/],
    [{ mode: 'bundled', baseUrl: 'https://x.example/api/v1' }, /baseUrl/],
    [{ mode: 'cloud' }, /mode/],
  ])('refuses %j naming the field', (config, message) => {
    expect(() => createOverlayClientFromConfig(config as OverlayClientConfig)).toThrow(message);
  });

  it('exports the schema for the host config to embed', () => {
    expect(overlayClientConfigSchema.safeParse({ mode: 'bundled' }).success).toBe(true);
    expect(overlayClientConfigSchema.safeParse({ mode: 'remote', baseUrl: 'http://127.0.0.1:8080/api/v1', apiKey: 'k' }).success).toBe(true);
  });
});

describe('createOverlayClientFromConfig, mode bundled', () => {
  it('builds the in-process client over the given service and account', async () => {
    const { service, ids, close } = await seededService();
    try {
      const client = createOverlayClientFromConfig({ mode: 'bundled' }, { bundled: { operations: service, accountId: ids.accountId } });
      expect((await client.getTemplate()).preset_id).toBe(ids.defaultPresetId);
    } finally {
      await close();
    }
  });
});
