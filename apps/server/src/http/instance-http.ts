/**
 * What every instance does with its HTTP server, the media instance and a relaying one alike:
 * route WebSocket upgrades (the signalling path to whoever handles it, `/app/{key}` to the
 * realtime endpoint, anything else 404) and name the base URL it listens on. Upgrades of the
 * two socket paths are counted first (`admit`: the anonymous rate limit of sockets) and a
 * refused one answered 429 before any WebSocket is made.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PUSHER_APP_PATH_PREFIX } from '../realtime/embedded/constants';
import { SocketRateLimit } from './anonymous-rate-limit';
import { requestTargetProblem } from './request-target';

/** The signalling WebSocket's path. */
export const SIGNAL_PATH = '/signal';

type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Sends `/signal` upgrades to `signal`, realtime ones to `realtime`, the rest a 404. A target
 * that is not an origin-form path is refused (400, `request-target.ts`), and `screen` may refuse
 * an upgrade with a status before anything else (a relay header that does not hold). With
 * `admit`, a socket path's upgrade goes on only once admitted; a refusal names the seconds to
 * wait.
 */
export function routeUpgrades(
  server: Server,
  handlers: {
    signal: UpgradeHandler;
    realtime: { handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean };
    screen?: (request: IncomingMessage) => number | null;
    admit?: (request: IncomingMessage) => Promise<number | null>;
  },
): void {
  const route = (path: string, request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (path === SIGNAL_PATH) return handlers.signal(request, socket, head);
    if (handlers.realtime.handleUpgrade(request, socket, head)) return;
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  };
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused =
      requestTargetProblem(request.url) !== null ? 400 : (handlers.screen?.(request) ?? null);
    if (refused !== null) {
      socket.end(`HTTP/1.1 ${refused} ${STATUS_CODES[refused] ?? ''}\r\nConnection: close\r\n\r\n`);
      return;
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    const { admit } = handlers;
    if (!admit || (path !== SIGNAL_PATH && !path.startsWith(PUSHER_APP_PATH_PREFIX))) {
      return route(path, request, socket, head);
    }
    // The client may go while it is counted: its socket's error must not go unheard.
    const gone = () => socket.destroy();
    socket.on('error', gone);
    void admit(request).then((retryAfterS) => {
      socket.off('error', gone);
      if (socket.destroyed) return;
      if (retryAfterS !== null) return SocketRateLimit.refuse(socket, retryAfterS);
      route(path, request, socket, head);
    });
  });
}

/** The base URL of a server listening on `host`:`port` (a wildcard address: `localhost`). */
export function baseUrlOf(host: string, port: number, https: boolean): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `${https ? 'https' : 'http'}://${name.includes(':') ? `[${name}]` : name}:${port}`;
}
