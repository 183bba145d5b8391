// Where the Twitch endpoints are, from the config: twurple has no per-client "mock server" option,
// it reads TWURPLE_MOCK_API_PORT from the environment (Helix under /mock, id.twitch.tv under
// /auth, EventSub at ws://127.0.0.1:PORT/ws), so a configured twitch.helix.mockServerPort is put
// there; the device flow, which twurple does not do, follows the same layout.
import { TWITCH_OAUTH_URL } from './device-code-flow.ts';

/** Points every twurple client of this process at the mock API port (null: leaves Twitch's). */
export function applyTwurpleMockPort(port: number | null): void {
  if (port !== null) process.env['TWURPLE_MOCK_API_PORT'] = String(port);
}

/** Where twurple's HTTP calls go now (Helix, id.twitch.tv): the mock API port's origin, or Twitch's two. */
export function twurpleHttpOrigins(): string[] {
  // twurple reads the variable on every request and always calls it localhost (getTwitchApiUrl).
  const port = process.env['TWURPLE_MOCK_API_PORT'];
  return port ? [`http://localhost:${port}`] : ['https://api.twitch.tv', 'https://id.twitch.tv'];
}

/** id.twitch.tv's OAuth base: the configured one, else the mock port's /auth, else Twitch's. */
export function oauthBaseUrl(configured: string | null, mockServerPort: number | null): string {
  if (configured !== null) return configured.replace(/\/+$/, '');
  const port = mockServerPort ?? (process.env['TWURPLE_MOCK_API_PORT'] ? Number(process.env['TWURPLE_MOCK_API_PORT']) : null);
  return port !== null && Number.isInteger(port) && port > 0 ? `http://localhost:${port}/auth` : TWITCH_OAUTH_URL;
}
