// The address people paste into OBS: overlay.publicUrl when set (behind a proxy), else the
// listening address (a wildcard host shown as 127.0.0.1, which a local OBS can reach).
import type { Config } from '../config/index.ts';

export function publicBaseUrl(config: Config, port = config.http.port): string {
  if (config.overlay.publicUrl) return config.overlay.publicUrl.replace(/\/+$/, '');
  return localBaseUrl(config, port);
}

/**
 * The listening address as this machine reaches it, whatever overlay.publicUrl says: what the
 * loopback-only routes (the local chat) are called on, since a proxy's request is refused there.
 */
export function localBaseUrl(config: Config, port = config.http.port): string {
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function overlayUrl(base: string, token: string): string {
  return `${base}/overlay/${token}`;
}
