/**
 * What every instance does with its HTTP server, the media instance and a relaying one alike:
 * route WebSocket upgrades (the signalling path to whoever handles it, `/app/{key}` to the
 * realtime endpoint, anything else 404) and name the base URL it listens on.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The signalling WebSocket's path. */
export const SIGNAL_PATH = '/signal';

type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Sends `/signal` upgrades to `signal`, realtime ones to `realtime`, the rest a 404. */
export function routeUpgrades(
  server: Server,
  handlers: {
    signal: UpgradeHandler;
    realtime: { handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean };
  },
): void {
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === SIGNAL_PATH) return handlers.signal(request, socket, head);
    if (handlers.realtime.handleUpgrade(request, socket, head)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  });
}

/** The base URL of a server listening on `host`:`port` (a wildcard address: `localhost`). */
export function baseUrlOf(host: string, port: number, https: boolean): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `${https ? 'https' : 'http'}://${name.includes(':') ? `[${name}]` : name}:${port}`;
}
