/**
 * One pusher-js socket on the embedded endpoint: parses its frames (zod schemas of
 * `@leadline/contracts/realtime`), answers pings, subscribes it to channels after checking
 * their auth, and keeps it alive or closes it per the lifecycle of `connection-state.ts`. A
 * socket without an authorised (private or presence) subscription `authDeadlineMs` after it
 * connected is closed (`authDeadline`).
 */
import {
  PusherClientFrame,
  PusherPresenceMember,
  PusherSubscribeData,
  PusherUnsubscribeData,
} from '@leadline/contracts/realtime';
import type { RawData, WebSocket } from 'ws';
import type { PusherCredentials } from '../pusher-auth';
import { isValidChannelAuth } from './channel-auth';
import { channelKind, type ChannelRegistry, type PresenceMember } from './channels';
import { connectionMachine } from './connection-state';
import { PUSHER_ERRORS, type PusherErrorName } from './errors';
import { errorFrame, eventFrame } from './frames';

/** Timers, injectable so tests can drive the keep-alive. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What a connection needs. */
export interface PusherConnectionOptions {
  socketId: string;
  ws: WebSocket;
  credentials: Pick<PusherCredentials, 'key' | 'secret'>;
  channels: ChannelRegistry;
  timers: Timers;
  activityTimeoutMs: number;
  pongTimeoutMs: number;
  /** How long the socket may stay without an authorised subscription. */
  authDeadlineMs: number;
  /** Called once when the socket has closed and left every channel. */
  onClosed(connection: PusherConnection): void;
}

/** One client socket speaking the Pusher protocol. */
export class PusherConnection {
  readonly socketId: string;
  readonly #options: PusherConnectionOptions;
  readonly #machine = connectionMachine();
  readonly #subscribed = new Set<string>();
  #timer: unknown;
  /** Closes the socket unless an authorised subscription comes first; undefined after one. */
  #authDeadline: unknown;

  constructor(options: PusherConnectionOptions) {
    this.#options = options;
    this.socketId = options.socketId;
    const { ws } = options;
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.#onClose());
    ws.on('error', () => ws.terminate());
    this.#armIdle();
    this.#authDeadline = options.timers.setTimeout(() => {
      this.#authDeadline = undefined;
      this.fail('authDeadline');
    }, options.authDeadlineMs);
  }

  /** Sends a frame when the socket is open. */
  send(frame: string): void {
    if (this.#options.ws.readyState === this.#options.ws.OPEN) this.#options.ws.send(frame);
  }

  /** Reports `name` in a `pusher:error` frame, and closes with its code when the table says so. */
  fail(name: PusherErrorName, detail?: string): void {
    this.send(errorFrame(name, detail));
    const error = PUSHER_ERRORS[name];
    if (error.close) this.#options.ws.close(error.code, error.message);
  }

  /** Closes the socket (server shutdown). */
  terminate(): void {
    this.#options.ws.terminate();
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (!this.#machine.trySend('activity')) return;
    this.#armIdle();
    if (isBinary) return this.fail('invalidFrame', 'Frames are JSON text.');
    let json: unknown;
    try {
      json = JSON.parse(rawText(data));
    } catch {
      return this.fail('invalidFrame', 'Frames are JSON text.');
    }
    const frame = PusherClientFrame.safeParse(json);
    if (!frame.success) return this.fail('invalidFrame', 'Expected { event, channel?, data }.');
    const { event } = frame.data;
    const payload = dataObject(frame.data.data);
    if (event === 'pusher:ping') return this.send(eventFrame('pusher:pong', {}));
    if (event === 'pusher:pong') return;
    if (event === 'pusher:subscribe') return this.#subscribe(payload);
    if (event === 'pusher:unsubscribe') return this.#unsubscribe(payload);
    if (event.startsWith('client-')) return this.fail('clientEventRefused');
    this.fail('unknownEvent', event.slice(0, 50));
  }

  #subscribe(payload: unknown): void {
    const parsed = PusherSubscribeData.safeParse(payload);
    if (!parsed.success) return this.fail('invalidChannel');
    const { channel, auth, channel_data: channelData } = parsed.data;
    const kind = channelKind(channel);
    const { credentials, channels } = this.#options;
    let member: PresenceMember | undefined;
    if (kind === 'presence') {
      member = presenceMember(channelData);
      if (!member) return this.#refuse(channel, 'channel_data must name a user_id.');
    }
    if (
      kind !== 'public' &&
      !isValidChannelAuth(
        credentials,
        this.socketId,
        channel,
        auth,
        kind === 'presence' ? channelData : undefined,
      )
    ) {
      return this.#refuse(channel, `Invalid signature for ${channel}.`);
    }
    if (kind !== 'public') this.#clearAuthDeadline();
    // A repeated subscribe is answered again; a socket counts once per channel.
    const added = channels.subscribe(channel, this, member);
    this.#subscribed.add(channel);
    this.send(
      eventFrame(
        'pusher_internal:subscription_succeeded',
        kind === 'presence' ? { presence: channels.presenceOf(channel) } : {},
        channel,
      ),
    );
    if (added) this.#broadcast(channel, eventFrame('pusher_internal:member_added', added, channel));
  }

  #unsubscribe(payload: unknown): void {
    const parsed = PusherUnsubscribeData.safeParse(payload);
    if (!parsed.success) return this.fail('invalidChannel');
    this.#leave(parsed.data.channel);
  }

  #leave(channel: string): void {
    if (!this.#subscribed.delete(channel)) return;
    const gone = this.#options.channels.unsubscribe(channel, this.socketId);
    if (gone !== undefined) {
      this.#broadcast(
        channel,
        eventFrame('pusher_internal:member_removed', { user_id: gone }, channel),
      );
    }
  }

  /** Refuses a subscription as hosted Pusher does: `pusher:error`, and the channel's error. */
  #refuse(channel: string, detail: string): void {
    this.fail('unauthorized', detail);
    const { code, message } = PUSHER_ERRORS.unauthorized;
    this.send(
      eventFrame(
        'pusher:subscription_error',
        { type: 'AuthError', error: `${message} ${detail}`, status: 401, code },
        channel,
      ),
    );
  }

  #broadcast(channel: string, frame: string): void {
    for (const subscriber of this.#options.channels.subscribersOf(channel)) {
      if (subscriber.socketId !== this.socketId) subscriber.send(frame);
    }
  }

  #armIdle(): void {
    const { timers, activityTimeoutMs, pongTimeoutMs } = this.#options;
    if (this.#timer !== undefined) timers.clearTimeout(this.#timer);
    this.#timer = timers.setTimeout(() => {
      if (!this.#machine.trySend('idle')) return;
      this.send(eventFrame('pusher:ping', {}));
      this.#timer = timers.setTimeout(() => {
        if (this.#machine.trySend('pongTimeout')) this.fail('pongTimeout');
      }, pongTimeoutMs);
    }, activityTimeoutMs);
  }

  #clearAuthDeadline(): void {
    if (this.#authDeadline !== undefined) this.#options.timers.clearTimeout(this.#authDeadline);
    this.#authDeadline = undefined;
  }

  #onClose(): void {
    this.#machine.trySend('close');
    if (this.#timer !== undefined) this.#options.timers.clearTimeout(this.#timer);
    this.#clearAuthDeadline();
    for (const channel of [...this.#subscribed]) this.#leave(channel);
    this.#options.onClosed(this);
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** pusher-js sends `data` as an object; some clients send it as a JSON string. */
function dataObject(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

function presenceMember(channelData: string | undefined): PresenceMember | undefined {
  if (channelData === undefined) return undefined;
  const parsed = PusherPresenceMember.safeParse(dataObject(channelData));
  if (!parsed.success) return undefined;
  return { user_id: String(parsed.data.user_id), user_info: parsed.data.user_info };
}
