import { encodeFrame } from '@leadline/contracts/signalling';
import { SOCKET_OPEN, type SocketLike } from '../platform/platform';

/** A WebSocket the test plays the gateway for: it sees what was sent and delivers frames. */
export class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  /** Raw frames sent by the SDK. */
  readonly sent: string[] = [];

  constructor(readonly url: string) {}

  send(data: string): void {
    if (this.readyState !== SOCKET_OPEN) throw new Error('socket not open');
    this.sent.push(data);
  }

  close(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({ code: 1000, reason: '' } as CloseEvent);
  }

  /** The gateway accepts the connection. */
  open(): void {
    this.readyState = SOCKET_OPEN;
    this.onopen?.({} as Event);
  }

  /** The gateway sends a frame (or a raw string such as the heartbeat `\n`). */
  deliver(type: string, payload?: unknown): void {
    const data = payload === undefined ? type : encodeFrame(type, payload);
    this.onmessage?.({ data } as MessageEvent);
  }

  /** The frames sent, parsed (heartbeats left out). */
  frames(): Array<{ type: string; version: string; payload: Record<string, unknown> }> {
    return this.sent.filter((s) => s !== '\n').map((s) => JSON.parse(s) as never);
  }

  /** The last frame of a type, or undefined. */
  last(type: string): Record<string, unknown> | undefined {
    return this.frames()
      .filter((f) => f.type === type)
      .at(-1)?.payload;
  }
}
