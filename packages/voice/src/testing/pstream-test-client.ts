/**
 * A PStream client socket for tests and the bench: it sends frames, collects the gateway's, and
 * waits for the one a test needs. It speaks the wire protocol only; media is the test's business
 * (a `WeriftBrowser`).
 */
import { WebSocket } from 'ws';
import { encodeFrame } from '@leadline/contracts/signalling';

/** One frame from the gateway. */
export interface ReceivedFrame {
  type: string;
  payload: Record<string, unknown>;
}

/** A client socket that collects frames and waits for them. */
export class PStreamTestClient {
  readonly frames: ReceivedFrame[] = [];
  readonly #waiters: Array<() => void> = [];

  constructor(
    readonly ws: WebSocket,
    /** How long `next` waits before it fails. */
    readonly timeoutMs = 2000,
  ) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text === '\n') return;
      this.frames.push(JSON.parse(text) as ReceivedFrame);
      this.#waiters.splice(0).forEach((wake) => wake());
    });
  }

  /** Opens a socket to `url` (`ws://…/signal`). */
  static async connect(url: string, timeoutMs?: number): Promise<PStreamTestClient> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new PStreamTestClient(ws, timeoutMs);
  }

  /** Sends one frame. */
  send(type: string, payload: unknown): void {
    this.ws.send(encodeFrame(type, payload));
  }

  /** Authenticates with `token` and, unless told not to, registers; resolves when done. */
  async login(token: string, register = true): Promise<void> {
    this.send('listen', { token, browserinfo: {}, reconnectTimeout: 0 });
    await this.next('connected');
    if (!register) return;
    this.send('register', { media: { audio: true } });
    await this.next('ready');
  }

  /** Takes the first frame of `type` received (waiting for it if need be). */
  async next(type: string): Promise<Record<string, unknown>> {
    return (await this.nextOf(type)).payload;
  }

  /** Takes the first frame of any of `types` received (waiting for one if need be). */
  async nextOf(...types: string[]): Promise<ReceivedFrame> {
    for (;;) {
      const index = this.frames.findIndex((frame) => types.includes(frame.type));
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no '${types.join("' or '")}' frame; got ${JSON.stringify(this.frames)}`),
            ),
          this.timeoutMs,
        );
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Closes the socket (as a lost connection would, from the gateway's side). */
  close(): void {
    this.ws.close();
  }
}
