/**
 * Sees rings arrive at the signalling socket, before the SDK hands them over: the SDK emits
 * `incoming` only once its ringtone plays (spec section 9: it waits up to 2000 ms for it), and
 * the console then still has to load the call user. With the tap, the port's device emits
 * `invite` with the ring's parameters as the frame arrives, so the console's GET of the call
 * user runs while the ringtone starts (issue 38, item 4).
 *
 * It wraps the sockets the SDK makes (`Platform.createSocket`): each wrapper passes everything
 * through, and looks at every message first (the SDK's own handler then runs as before). It
 * reads only `invite` frames, and never changes or drops one; what the SDK makes of the frame is
 * still the SDK's affair (a malformed one is its to refuse).
 */
import type { SocketLike } from '@leadline/softphone';
import type { PhoneCallParameters } from './phone-port';

/** Hears the parameters of each ring that reaches a watched socket. */
export type InviteListener = (parameters: PhoneCallParameters) => void;

/** The rings' parameters in a gateway `invite` frame, or null for any other message. */
export function inviteParameters(data: unknown): PhoneCallParameters | null {
  // Cheap test first: most frames (heartbeats, acks, SDP of other kinds) are not invites.
  if (typeof data !== 'string' || !data.includes('"invite"')) return null;
  let frame: unknown;
  try {
    frame = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof frame !== 'object' || frame === null) return null;
  const { type, payload } = frame as { type?: unknown; payload?: unknown };
  if (type !== 'invite' || typeof payload !== 'object' || payload === null) return null;
  const { callsid, parameters } = payload as { callsid?: unknown; parameters?: unknown };
  if (typeof callsid !== 'string' || typeof parameters !== 'object' || parameters === null) {
    return null;
  }
  const { From, To } = parameters as { From?: unknown; To?: unknown };
  if (typeof From !== 'string') return null;
  return typeof To === 'string' ? { CallSid: callsid, From, To } : { CallSid: callsid, From };
}

/** A socket that shows its `invite` frames to a listener before its own handler sees them. */
class WatchedSocket implements SocketLike {
  #onmessage: ((event: MessageEvent) => void) | null = null;

  constructor(
    private readonly socket: SocketLike,
    private readonly heard: InviteListener,
  ) {}

  get readyState(): number {
    return this.socket.readyState;
  }
  get onopen(): ((event: Event) => void) | null {
    return this.socket.onopen;
  }
  set onopen(handler: ((event: Event) => void) | null) {
    this.socket.onopen = handler;
  }
  get onclose(): ((event: CloseEvent) => void) | null {
    return this.socket.onclose;
  }
  set onclose(handler: ((event: CloseEvent) => void) | null) {
    this.socket.onclose = handler;
  }
  get onerror(): ((event: Event) => void) | null {
    return this.socket.onerror;
  }
  set onerror(handler: ((event: Event) => void) | null) {
    this.socket.onerror = handler;
  }
  get onmessage(): ((event: MessageEvent) => void) | null {
    return this.#onmessage;
  }
  set onmessage(handler: ((event: MessageEvent) => void) | null) {
    this.#onmessage = handler;
    this.socket.onmessage =
      handler &&
      ((event) => {
        const parameters = inviteParameters(event.data);
        if (parameters) {
          // A listener's failure is not the SDK's: the frame still reaches it.
          try {
            this.heard(parameters);
          } catch {
            // Ignored: the console's own loading reports its errors.
          }
        }
        handler(event);
      });
  }

  send(data: string): void {
    this.socket.send(data);
  }
  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }
}

/** The listeners of one device's sockets, and the socket factory that feeds them. */
export class InviteTap {
  readonly #listeners = new Set<InviteListener>();

  /** `createSocket` over `create` (the platform's): every socket it makes is watched. */
  watching(create: (url: string) => SocketLike): (url: string) => SocketLike {
    return (url) =>
      new WatchedSocket(create(url), (parameters) => {
        for (const listener of [...this.#listeners]) listener(parameters);
      });
  }

  on(listener: InviteListener): void {
    this.#listeners.add(listener);
  }

  off(listener: InviteListener): void {
    this.#listeners.delete(listener);
  }
}
