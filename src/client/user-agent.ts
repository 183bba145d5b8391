// The User-Agent the HTTP client sends by default. The service's edge filter refuses a missing
// or generic agent (Node's bare `undici`, `node-fetch/...`), so the client names itself.
import packageJson from '../../package.json' with { type: 'json' };

export const DEFAULT_USER_AGENT = `chatskin/${packageJson.version}`;
