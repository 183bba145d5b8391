// A cap on the connections one client address holds open at once (docs/config.md, http): past it
// a new connection from that address is closed at once, unanswered, as past the server's
// maxConnections; so one client cannot take every connection the server allows, which the API's
// other callers and the overlays need too. Counted per TCP peer, by addressBlock (an IPv6
// client's whole /64). A reverse proxy's connections carry many clients: addresses `exempt`
// names (the proxies trusted in http.trustProxy) are not counted.
import { BlockList, isIP } from 'node:net';
import type { Server, Socket } from 'node:net';
import { addressBlock } from './authentication.ts';

export interface ConnectionsPerAddressOptions {
  /** Connections one address may hold open at once. */
  max: number;
  /** Addresses whose connections are never counted (reverse proxies). Default none. */
  exempt?: (address: string) => boolean;
}

export function limitConnectionsPerAddress(server: Server, options: ConnectionsPerAddressOptions): void {
  const { max, exempt = () => false } = options;
  const open = new Map<string, number>();
  // After the HTTP server's own listener: a connection closed here ends like one the client closed.
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // Gone already (the client hung up before this turn), or a proxy's.
    if (address === undefined || exempt(address)) return;
    const block = addressBlock(address);
    const count = open.get(block) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(block, count + 1);
    socket.once('close', () => {
      const left = (open.get(block) ?? 1) - 1;
      if (left === 0) open.delete(block);
      else open.set(block, left);
    });
  });
}

/**
 * Whether an address is one of http.trustProxy's proxies: with a list, an address or CIDR range
 * of it (an IPv4 client of a dual-stack server, `::ffff:10.0.0.1`, matches `10.0.0.0/8`). With
 * `true` anybody's X-Forwarded-For is believed, so nobody is known to be a proxy: none.
 */
export function trustedProxyMatcher(trustProxy: boolean | readonly string[]): (address: string) => boolean {
  if (typeof trustProxy === 'boolean' || trustProxy.length === 0) return () => false;
  const proxies = new BlockList();
  for (const entry of trustProxy) {
    const [withZone = '', prefix] = entry.split('/');
    const address = withZone.split('%')[0]!;
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(prefix), type);
  }
  return (withZone) => {
    const address = withZone.split('%')[0]!;
    const type = isIP(address);
    return type !== 0 && proxies.check(address, type === 6 ? 'ipv6' : 'ipv4');
  };
}
