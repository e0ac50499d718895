/**
 * Relays a WebSocket upgrade (the softphone's signalling, `/signal`) to the media instance: the
 * upgrade goes to the media instance's origin and the signalling path with the query encoded
 * again (never the raw request target), with the headers a WebSocket handshake needs and the
 * relay's signed header (`relay-signature.ts`: the browser's address as this instance found it,
 * counted here already, the leader's epoch). The media instance's answer comes back as it was
 * given (101 and its headers, or a refusal), and then bytes flow both ways untouched until either
 * side closes. The WebSocket itself (frames, pings, close codes) is between the softphone and
 * the media instance.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SIGNAL_PATH } from '../http/instance-http';
import { originOf, queryOf } from './relayed-routes';
import { RELAY_HEADER, type RelayClaims, type RelaySigner } from './relay-signature';

/** The handshake's headers that go on; no other does. */
const FORWARDED_HEADERS = [
  'connection',
  'upgrade',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-protocol',
  'sec-websocket-extensions',
  'origin',
  'user-agent',
  'cookie',
] as const;

/** What the relay signs an upgrade with. */
export interface UpgradeSigning {
  signer: RelaySigner;
  claims: RelayClaims;
}

/**
 * Relays `request` (a `/signal` upgrade this instance received and counted) to the media instance
 * at `base`; `onUnreachable` hears that `base` could not be reached (the media instance may have
 * moved).
 */
export function relayUpgrade(
  base: string,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  signing: UpgradeSigning,
  onUnreachable?: () => void,
): void {
  const refuse = (status: number, reason: string) => {
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  };
  const origin = originOf(base);
  if (origin === null) return refuse(502, 'Bad Gateway');
  const query = queryOf(request.url ?? '');
  const targetPath = query ? `${SIGNAL_PATH}?${query}` : SIGNAL_PATH;
  const target = new URL(targetPath, origin);
  const headers: Record<string, string> = { host: target.host };
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  headers[RELAY_HEADER] = signing.signer.sign(
    signing.claims,
    { method: 'GET', target: targetPath, body: '' },
    Date.now(),
  );
  const client = target.protocol === 'https:' ? https : http;
  const upstream = client.request(target, { method: 'GET', headers });
  socket.on('error', () => upstream.destroy());
  upstream.on('error', () => {
    onUnreachable?.();
    refuse(502, 'Bad Gateway');
  });
  upstream.on('response', (response) => {
    // The media instance refused the upgrade: its status goes back, the body is not needed.
    refuse(response.statusCode ?? 502, response.statusMessage ?? 'Bad Gateway');
    response.resume();
  });
  upstream.on('upgrade', (response, upstreamSocket, upstreamHead) => {
    const lines = [`HTTP/1.1 101 ${response.statusMessage ?? 'Switching Protocols'}`];
    for (let i = 0; i < response.rawHeaders.length; i += 2) {
      lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
    }
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.on('error', () => socket.destroy());
    socket.on('close', () => upstreamSocket.destroy());
    upstreamSocket.on('close', () => socket.destroy());
    upstreamSocket.pipe(socket);
    socket.pipe(upstreamSocket);
  });
  upstream.end();
}
