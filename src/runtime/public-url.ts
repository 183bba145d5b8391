// The address people paste into OBS: overlay.publicUrl when set (behind a proxy), else the
// listening address (a wildcard host shown as 127.0.0.1, which a local OBS can reach).
// `port` is the port the host listens on: with http.port 0 the running host picks a free one,
// which only it knows, so other processes (the CLI) use the configured* functions.
import type { Config } from '../config/index.ts';
import { overlayPagePath } from '../service/push/protocol.ts';

export function publicBaseUrl(config: Config, port: number): string {
  if (config.overlay.publicUrl) return config.overlay.publicUrl.replace(/\/+$/, '');
  return localBaseUrl(config, port);
}

/**
 * The listening address as this machine reaches it, whatever overlay.publicUrl says: what the
 * loopback-only routes (the local chat) are called on, since a proxy's request is refused there.
 */
export function localBaseUrl(config: Config, port: number): string {
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * publicBaseUrl as the config alone tells it, for a process other than the running host:
 * undefined when http.port is 0 (the host picks a free port, which only it knows) and
 * overlay.publicUrl is not set.
 */
export function configuredPublicBaseUrl(config: Config): string | undefined {
  if (config.overlay.publicUrl) return publicBaseUrl(config, config.http.port);
  return configuredLocalBaseUrl(config);
}

/** localBaseUrl as the config alone tells it: undefined when http.port is 0. */
export function configuredLocalBaseUrl(config: Config): string | undefined {
  return config.http.port === 0 ? undefined : localBaseUrl(config, config.http.port);
}

export function overlayUrl(base: string, token: string): string {
  return `${base}${overlayPagePath(token)}`;
}
