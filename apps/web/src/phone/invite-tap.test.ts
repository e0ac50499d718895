import type { SocketLike } from '@leadline/softphone';
import { describe, expect, it } from 'vitest';
import { InviteTap, inviteParameters } from './invite-tap';
import type { PhoneCallParameters } from './phone-port';

/** A socket the test plays the gateway on: `receive` delivers a message to its handler. */
class GatewaySocket implements SocketLike {
  readyState = 1;
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  readonly sent: string[] = [];
  closed: { code?: number; reason?: string } | null = null;
  send(data: string): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closed = { code, reason };
  }
  receive(data: unknown): void {
    this.onmessage?.({ data } as MessageEvent);
  }
}

const invite = (callsid: string, parameters: Record<string, string>) =>
  JSON.stringify({ type: 'invite', version: '1.6', payload: { callsid, sdp: 'v=0', parameters } });

function watchedSocket() {
  const tap = new InviteTap();
  const inner = new GatewaySocket();
  const socket = tap.watching(() => inner)('ws://console.test/signal');
  return { tap, inner, socket };
}

describe('the invite tap', () => {
  it('shows a ring to its listeners before the SDK’s own handler gets the frame', () => {
    const { tap, inner, socket } = watchedSocket();
    const order: string[] = [];
    tap.on((parameters) => order.push(`tap ${parameters.From}`));
    socket.onmessage = (event) => order.push(`sdk ${String(event.data).slice(0, 15)}`);
    inner.receive(invite('CA1', { From: 'client:42', To: '+15550100042', CallSid: 'CA1' }));
    expect(order).toEqual(['tap client:42', 'sdk {"type":"invite']);
  });

  it('hands over the ring’s call sid, From and To', () => {
    const { tap, inner, socket } = watchedSocket();
    const heard: PhoneCallParameters[] = [];
    tap.on((parameters) => heard.push(parameters));
    socket.onmessage = () => undefined;
    inner.receive(invite('CA2', { From: 'client:7' }));
    expect(heard).toEqual([{ CallSid: 'CA2', From: 'client:7' }]);
  });

  it('passes every other message through untouched, and tells nothing of it', () => {
    const { tap, inner, socket } = watchedSocket();
    const heard: PhoneCallParameters[] = [];
    const got: unknown[] = [];
    tap.on((parameters) => heard.push(parameters));
    socket.onmessage = (event) => got.push(event.data);
    const frames = [
      '\n',
      JSON.stringify({ type: 'ready', payload: {} }),
      JSON.stringify({ type: 'cancel', payload: { callsid: 'CA1' } }),
      '{"type":"invite", not json',
      JSON.stringify({ type: 'invite', payload: { callsid: 'CA3' } }),
      new ArrayBuffer(2),
    ];
    for (const frame of frames) inner.receive(frame);
    expect(got).toEqual(frames);
    expect(heard).toEqual([]);
  });

  it('a listener that throws does not keep the frame from the SDK', () => {
    const { tap, inner, socket } = watchedSocket();
    let got = 0;
    tap.on(() => {
      throw new Error('listener failed');
    });
    socket.onmessage = () => got++;
    inner.receive(invite('CA4', { From: 'client:4' }));
    expect(got).toBe(1);
  });

  it('stops telling a listener taken off; the socket’s other parts pass through', () => {
    const { tap, inner, socket } = watchedSocket();
    const heard: string[] = [];
    const listener = (parameters: PhoneCallParameters) => heard.push(parameters.CallSid);
    tap.on(listener);
    socket.onmessage = () => undefined;
    inner.receive(invite('CA5', { From: 'client:5' }));
    tap.off(listener);
    inner.receive(invite('CA6', { From: 'client:6' }));
    expect(heard).toEqual(['CA5']);
    const opened = () => undefined;
    socket.onopen = opened;
    expect(inner.onopen).toBe(opened);
    socket.send('{"type":"listen"}');
    socket.close(1000, 'bye');
    expect(inner.sent).toEqual(['{"type":"listen"}']);
    expect(inner.closed).toEqual({ code: 1000, reason: 'bye' });
    socket.onmessage = null;
    expect(inner.onmessage).toBeNull();
  });

  it('reads no parameters out of frames that are not rings', () => {
    expect(inviteParameters(JSON.stringify({ type: 'invite', payload: null }))).toBeNull();
    expect(inviteParameters(JSON.stringify({ type: 'answer', payload: { invite: 1 } }))).toBeNull();
    expect(inviteParameters(42)).toBeNull();
  });
});
