/**
 * Relays a WebSocket upgrade (the softphone's signalling, `/signal`) to the media instance: the
 * upgrade request goes on as it came (path, query, headers), the media instance's answer comes
 * back as it was given (101 and its headers, or a refusal), and then bytes flow both ways
 * untouched until either side closes. The WebSocket itself (frames, pings, close codes) is
 * between the softphone and the media instance.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Relays `request` (an upgrade this instance received) to `base`; `onUnreachable` hears that
 * `base` could not be reached (the media instance may have moved).
 */
export function relayUpgrade(
  base: string,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  onUnreachable?: () => void,
): void {
  const target = new URL(request.url ?? '/', base);
  const client = target.protocol === 'https:' ? https : http;
  const upstream = client.request(target, {
    method: request.method ?? 'GET',
    headers: {
      ...request.headers,
      host: target.host,
      'x-forwarded-for': request.socket.remoteAddress ?? '',
    },
  });
  const refuse = (status: number, reason: string) => {
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n\r\n`);
    else socket.destroy();
  };
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
